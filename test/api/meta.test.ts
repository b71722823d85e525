import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  objectMetaSchema,
  listMetaSchema,
  typeMetaSchema,
  type Deployment,
  type ListMeta,
  type ObjectMeta,
  type OwnerReference,
  type Pod,
  type TypeMeta,
} from '../../src/api/index.js';

describe('the metadata schemas', () => {
  it('infer the ObjectMeta fields with their Kubernetes types', () => {
    expectTypeOf<ObjectMeta['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ObjectMeta['generation']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ObjectMeta['labels']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<ObjectMeta['finalizers']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<ObjectMeta['ownerReferences']>().toEqualTypeOf<OwnerReference[] | undefined>();
    expectTypeOf<OwnerReference['uid']>().toEqualTypeOf<string>();
    expectTypeOf<OwnerReference['controller']>().toEqualTypeOf<boolean | undefined>();
  });

  it('infer the list and type metadata', () => {
    expectTypeOf<ListMeta['continue']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ListMeta['remainingItemCount']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<TypeMeta['kind']>().toEqualTypeOf<string | undefined>();
  });

  it('infer kind types whose required parts are required', () => {
    expectTypeOf<Pod['spec']['containers'][number]['image']>().toEqualTypeOf<string>();
    expectTypeOf<Pod['metadata']>().toEqualTypeOf<ObjectMeta>();
    expectTypeOf<NonNullable<Pod['spec']['restartPolicy']>>().toEqualTypeOf<'Always' | 'OnFailure' | 'Never'>();
    expectTypeOf<Deployment['spec']['replicas']>().toEqualTypeOf<number | undefined>();
  });

  it('keep fields they do not model', () => {
    const meta = { name: 'a', somethingNew: { x: 1 } };
    expect(objectMetaSchema.parse(meta)).toEqual(meta);
    expect(listMetaSchema.parse({ resourceVersion: '5', selfLink: '/x' })).toEqual({ resourceVersion: '5', selfLink: '/x' });
    expect(typeMetaSchema.parse({ kind: 'Pod', apiVersion: 'v1', spec: {} })).toEqual({ kind: 'Pod', apiVersion: 'v1', spec: {} });
  });

  it('reject metadata fields of the wrong type', () => {
    expect(objectMetaSchema.safeParse({ name: 1 }).success).toBe(false);
    expect(objectMetaSchema.safeParse({ generation: '1' }).success).toBe(false);
    expect(objectMetaSchema.safeParse({ ownerReferences: [{ kind: 'Pod' }] }).success).toBe(false);
  });
});
