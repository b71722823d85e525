// withoutUnknownFields (src/apiserver/writes/field-validation.ts): a body's fields that its schema
// does not declare are dropped and named by their path (`a.b`, a list index `[0]`, a map key
// `[key]`), what is left is shared with the body wherever nothing was dropped, and a body with
// nothing unknown is returned as it is. The write suites check the same over HTTP for built-in kinds.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withoutUnknownFields } from '../../src/apiserver/writes/field-validation.js';

const schema = z.object({
  spec: z.object({
    items: z.array(z.object({ name: z.string() })),
    byName: z.record(z.string(), z.object({ port: z.number() })),
    free: z.unknown(),
  }),
});

describe('withoutUnknownFields', () => {
  it('names every unknown field by its path, drops it, and shares what it left alone', () => {
    const first = { name: 'a' };
    const free = { anything: { goes: [1] } };
    const body = {
      spec: { items: [first, { name: 'b', colour: 'red' }], byName: { web: { port: 1, extra: true } }, free, stray: 1 },
      top: 2,
    };
    const { value, unknown } = withoutUnknownFields(schema, body);
    expect(unknown).toEqual(['spec.items[1].colour', 'spec.byName[web].extra', 'spec.stray', 'top']);
    expect(value).toEqual({ spec: { items: [{ name: 'a' }, { name: 'b' }], byName: { web: { port: 1 } }, free } });
    const spec = (value as typeof body).spec;
    expect(spec.items[0]).toBe(first);
    expect(spec.free).toBe(free);
    // The body itself is untouched.
    expect(body.spec.items[1]).toEqual({ name: 'b', colour: 'red' });
    expect(body.top).toBe(2);
  });

  it('returns a body with no unknown field as it is', () => {
    const body = { spec: { items: [{ name: 'a' }], byName: { web: { port: 1 } }, free: { x: 1 } } };
    const { value, unknown } = withoutUnknownFields(schema, body);
    expect(value).toBe(body);
    expect(unknown).toEqual([]);
  });

  it('names a top-level list item and a map at the root without a leading dot', () => {
    expect(withoutUnknownFields(z.array(z.object({ a: z.string() })), [{ a: 'x', b: 'y' }]).unknown).toEqual(['[0].b']);
    expect(withoutUnknownFields(z.record(z.string(), z.object({ a: z.string() })), { k: { a: 'x', b: 'y' } }).unknown).toEqual(['[k].b']);
  });
});
