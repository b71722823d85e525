// The client's `builtin` addresses are written out (so a process using the client loads no kind
// schema it does not use); each must stay the registry's own type.
import { describe, expect, it } from 'vitest';
import { builtinTypes } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';

describe('builtin resources of the client', () => {
  it.each(Object.entries(builtin))('%s addresses the registry type of its kind', (_, res) => {
    const type = builtinTypes.find((t) => t.group === res.group && t.version === res.version && t.resource === res.resource);
    expect(type, `${res.group}/${res.version} ${res.resource}`).toBeDefined();
    expect({ namespaced: res.namespaced, kind: res.kind }).toEqual({ namespaced: type!.namespaced, kind: type!.kind });
  });

  it('names every registry type that has its own object schema at most once', () => {
    const keys = Object.values(builtin).map((res) => `${res.group}/${res.resource}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
