import { z } from 'zod';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { isStatusError, type ObjectMeta } from '../../src/api/index.js';
import { validateStructuralSchema } from '../../src/apiserver/crd/index.js';
import { defineCustomResource, type ObjectOf } from '../../src/client/index.js';
import { Widget } from '../controllers/widgets.js';
import { TypedWidget, type TypedWidgetObject } from './typed-widget.js';

const schemaOf = (definition = TypedWidget.definition) => definition.spec.versions[0]!.schema!.openAPIV3Schema as Record<string, any>;

describe('defineCustomResource', () => {
  it('types the object from the zod schemas, with the project metadata', () => {
    expectTypeOf<TypedWidgetObject['metadata']>().toEqualTypeOf<ObjectMeta>();
    expectTypeOf<TypedWidgetObject['spec']['size']>().toEqualTypeOf<'small' | 'medium' | 'large'>();
    expectTypeOf<TypedWidgetObject['spec']['replicas']>().toEqualTypeOf<number>();
    expectTypeOf<TypedWidgetObject['status']>().toEqualTypeOf<{ replicas?: number | undefined; selector?: string | undefined; phase?: 'Pending' | 'Ready' | undefined } | undefined>();
  });

  it('makes the address of the resource', () => {
    expect(TypedWidget.resource).toEqual({ group: 'typed.example.com', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' });
    expect(TypedWidget.apiVersion).toBe('typed.example.com/v1');
  });

  it('makes a CRD with names, columns and subresources', () => {
    const { metadata, spec } = TypedWidget.definition;
    expect(metadata.name).toBe('widgets.typed.example.com');
    expect(spec.names).toEqual({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wdg'], categories: ['all'] });
    expect(spec.scope).toBe('Namespaced');
    const version = spec.versions[0]!;
    expect(version).toMatchObject({ name: 'v1', served: true, storage: true });
    expect(version.subresources).toEqual({ status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } });
    expect(version.additionalPrinterColumns?.map((c) => c.name)).toEqual(['Size', 'Replicas', 'Color']);
  });

  it('generates a structural schema the server accepts', () => {
    const root = schemaOf();
    expect(validateStructuralSchema(root, 'openAPIV3Schema')).toEqual([]);
    expect(JSON.stringify(root)).not.toMatch(/"\$ref"|"\$schema"|"additionalProperties":false|"propertyNames"|"anyOf"/);
    expect(root['properties'].metadata).toEqual({ type: 'object' });
    expect(root['required']).toEqual(['spec']);
    const spec = root['properties'].spec;
    expect(spec.required).toEqual(['replicas']); // size has a default: clients may leave it out
    expect(spec.properties.size).toEqual({ type: 'string', enum: ['small', 'medium', 'large'], default: 'medium' });
    expect(spec.properties.replicas).toEqual({ type: 'integer', minimum: 0, maximum: 10 });
    expect(schemaOf(defineCustomResource({ group: 'x.example.com', names: { plural: 'xs', kind: 'X' }, scope: 'Cluster', version: 'v1', spec: z.object({ n: z.int32() }) }).definition)['properties'].spec.properties.n).toEqual({ type: 'integer', format: 'int32' });
    expect(spec.properties.port).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(spec.properties.labels).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(spec.properties.parts.items.properties.weight).toEqual({ type: 'number', nullable: true, minimum: 0, exclusiveMinimum: true });
    expect(spec.properties.extra).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec.properties.anything).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(root['properties'].status.properties.phase).toEqual({ type: 'string', enum: ['Pending', 'Ready'] });
  });

  it('refuses, with a 400 naming the field, a schema Kubernetes cannot express', () => {
    const define = (spec: z.ZodType) => () => defineCustomResource({ group: 'x.example.com', names: { plural: 'xs', kind: 'X' }, scope: 'Cluster', version: 'v1', spec });
    for (const [spec, field] of [
      [z.object({ when: z.date() }), 'spec'],
      [z.object({ either: z.union([z.string(), z.object({ a: z.string() })]) }), 'spec.either'],
      [z.object({ pair: z.tuple([z.string(), z.int()]) }), 'spec.pair'],
    ] as const) {
      let error: unknown;
      try {
        define(spec)();
      } catch (caught) {
        error = caught;
      }
      expect(isStatusError(error, 'BadRequest')).toBe(true);
      expect((error as Error).message).toContain(field);
    }
  });

  it('leaves spec out of the required fields, and optional in the type, when its schema is optional', () => {
    const root = schemaOf(Widget.definition);
    expect(root['required']).toBeUndefined();
    expect(root['properties'].spec).toEqual({ type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } }, 'x-kubernetes-preserve-unknown-fields': true });
    expect(validateStructuralSchema(root, 'openAPIV3Schema')).toEqual([]);
    expectTypeOf<{ metadata: ObjectMeta }>().toExtend<ObjectOf<typeof Widget.resource>>();
  });

  it('refuses the status subresource without a status schema', () => {
    expect(() =>
      defineCustomResource({ group: 'x.example.com', names: { plural: 'xs', kind: 'X' }, scope: 'Cluster', version: 'v1', spec: z.object({}), subresources: { status: true } }),
    ).toThrow(/status subresource needs a status schema/);
  });

  it('checks objects on the client side with the whole schema', () => {
    const parsed = TypedWidget.schema.parse({ apiVersion: 'typed.example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { replicas: 2 } });
    expect(parsed.spec.size).toBe('medium');
    expect(TypedWidget.schema.safeParse({ metadata: {}, spec: { replicas: 11 } }).success).toBe(false);
  });
});
