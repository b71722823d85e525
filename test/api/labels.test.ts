import { describe, expect, it } from 'vitest';
import {
  TOTAL_ANNOTATION_SIZE_MAX,
  validateAnnotations,
  validateLabels,
  validateLabelValue,
  validateObjectMeta,
  validateQualifiedName,
} from '../../src/api/index.js';

describe('validateQualifiedName', () => {
  for (const key of ['app', 'App', 'a_b', 'a.b-c', 'example.com/app', 'svc.io/role', 'a/b', 'x'.repeat(63), `${'d'.repeat(253)}/n`]) {
    it(`accepts the key ${JSON.stringify(key.slice(0, 30))}`, () => expect(validateQualifiedName(key)).toEqual([]));
  }
  for (const key of ['', 'bad key', '-a', 'a-', '_a', 'x'.repeat(64), '/a', 'a/', 'Example.com/a', 'a/b/c', 'a!', `${'d'.repeat(254)}/n`]) {
    it(`rejects the key ${JSON.stringify(key.slice(0, 30))}`, () => expect(validateQualifiedName(key).length).toBeGreaterThan(0));
  }

  it('says which part of the key is wrong', () => {
    expect(validateQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(validateQualifiedName('a/')).toEqual(['name part must be non-empty']);
    expect(validateQualifiedName('x'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(validateQualifiedName('Bad.Prefix/a')[0]).toMatch(/^prefix part /);
  });
});

describe('validateLabelValue', () => {
  for (const value of ['', 'v', 'V1', 'a.b_c-d', 'x'.repeat(63)]) {
    it(`accepts the value ${JSON.stringify(value.slice(0, 30))}`, () => expect(validateLabelValue(value)).toEqual([]));
  }
  for (const value of ['bad value!', '-a', 'a-', 'a/b', 'x'.repeat(64)]) {
    it(`rejects the value ${JSON.stringify(value.slice(0, 30))}`, () => expect(validateLabelValue(value).length).toBeGreaterThan(0));
  }
});

describe('validateLabels', () => {
  it('accepts valid labels and a missing map', () => {
    expect(validateLabels({ app: 'web', 'example.com/tier': '', v: 'x'.repeat(63) }, 'metadata.labels')).toEqual([]);
    expect(validateLabels(undefined, 'metadata.labels')).toEqual([]);
  });

  it('reports a bad key and a bad value on the map field, naming the offender', () => {
    const causes = validateLabels({ 'bad key': 'v', k: 'bad value!' }, 'metadata.labels');
    expect(causes.map((c) => [c.reason, c.field])).toEqual([
      ['FieldValueInvalid', 'metadata.labels'],
      ['FieldValueInvalid', 'metadata.labels'],
    ]);
    expect(causes[0]!.message).toMatch(/^Invalid value: "bad key": /);
    expect(causes[1]!.message).toMatch(/^Invalid value: "bad value!": /);
  });

  it('rejects values over 63 characters', () => {
    expect(validateLabels({ k: 'v'.repeat(64) }, 'spec.template.metadata.labels')[0]).toMatchObject({
      field: 'spec.template.metadata.labels',
      message: expect.stringContaining('must be no more than 63 characters'),
    });
  });
});

describe('validateAnnotations', () => {
  it('accepts keys in any case and values of any content', () => {
    expect(validateAnnotations({ 'Example.COM/Note': 'any thing: at all!\n' }, 'metadata.annotations')).toEqual([]);
  });

  it('rejects keys that are not qualified names', () => {
    expect(validateAnnotations({ 'bad key': 'v' }, 'metadata.annotations')[0]?.field).toBe('metadata.annotations');
  });

  it('allows keys and values up to 256 KiB in total', () => {
    const key = 'k';
    expect(validateAnnotations({ [key]: 'x'.repeat(TOTAL_ANNOTATION_SIZE_MAX - key.length) }, 'metadata.annotations')).toEqual([]);
  });

  it('rejects one byte more as too long', () => {
    const causes = validateAnnotations({ big: 'x'.repeat(262_145) }, 'metadata.annotations');
    expect(causes).toEqual([
      { reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' },
    ]);
  });

  it('counts bytes, not characters', () => {
    const causes = validateAnnotations({ k: 'é'.repeat(TOTAL_ANNOTATION_SIZE_MAX / 2) }, 'metadata.annotations');
    expect(causes.map((c) => c.reason)).toEqual(['FieldValueTooLong']);
  });
});

describe('validateObjectMeta', () => {
  const namespaced = { namespaced: true, nameRule: 'subdomain' } as const;
  const cluster = { namespaced: false, nameRule: 'label' } as const;

  it('accepts a complete, valid metadata', () => {
    expect(
      validateObjectMeta(
        {
          name: 'web.example',
          namespace: 'default',
          labels: { app: 'web' },
          annotations: { note: 'x' },
          finalizers: ['example.com/cleanup', 'kubernetes'],
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
        },
        namespaced,
      ),
    ).toEqual([]);
  });

  it('requires a name or a generateName', () => {
    expect(validateObjectMeta({ namespace: 'default' }, namespaced)).toEqual([
      { reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' },
    ]);
    expect(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, namespaced)).toEqual([]);
  });

  it('checks the name by the rule of the kind', () => {
    expect(validateObjectMeta({ name: 'a.b' }, cluster).map((c) => c.field)).toEqual(['metadata.name']);
    expect(validateObjectMeta({ name: 'a.b', namespace: 'ns' }, namespaced)).toEqual([]);
  });

  it('checks a generateName as a prefix', () => {
    expect(validateObjectMeta({ generateName: 'Bad-', namespace: 'ns' }, namespaced).map((c) => c.field)).toEqual(['metadata.generateName']);
  });

  it('requires a namespace on namespaced kinds and forbids it on cluster-scoped ones', () => {
    expect(validateObjectMeta({ name: 'a' }, namespaced)).toEqual([
      { reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' },
    ]);
    expect(validateObjectMeta({ name: 'a', namespace: 'Bad_NS' }, namespaced).map((c) => c.field)).toEqual(['metadata.namespace']);
    expect(validateObjectMeta({ name: 'a', namespace: 'ns' }, cluster).map((c) => c.reason)).toEqual(['FieldValueForbidden']);
  });

  it('reports labels, annotations and finalizers at their fields', () => {
    const causes = validateObjectMeta(
      { name: 'a', namespace: 'ns', labels: { 'bad key': 'v' }, annotations: { '-x': '' }, finalizers: ['ok', 'not ok'] },
      namespaced,
    );
    expect(causes.map((c) => c.field)).toEqual(['metadata.labels', 'metadata.annotations', 'metadata.finalizers[1]']);
  });

  it('requires the identifying fields of owner references and at most one controller', () => {
    const causes = validateObjectMeta(
      {
        name: 'a',
        namespace: 'ns',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: '', controller: true },
          { apiVersion: 'v1', kind: 'Pod', name: 'q', uid: 'u', controller: true },
        ],
      },
      namespaced,
    );
    expect(causes.map((c) => c.field)).toEqual(['metadata.ownerReferences[0].uid', 'metadata.ownerReferences']);
  });

  it('leaves fields of the wrong type to the schema check', () => {
    const meta = { name: 42, namespace: 'ns', labels: 'x' } as unknown as Parameters<typeof validateObjectMeta>[0];
    expect(validateObjectMeta(meta, namespaced)).toEqual([]);
  });
});
