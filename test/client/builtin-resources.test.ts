// The client's `builtin` addresses are written out (so a process using the client loads no kind
// schema it does not use); each must stay the registry's own type.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { builtinTypes, type ConfigMap, type Deployment, type Lease, type Node, type Pod } from '../../src/api/index.js';
import { builtin, type ObjectOf } from '../../src/client/index.js';

describe('builtin resources of the client', () => {
  it.each(Object.entries(builtin))('%s addresses the registry type of its kind', (_, res) => {
    const type = builtinTypes.find((t) => t.group === res.group && t.version === res.version && t.resource === res.resource);
    expect(type, `${res.group}/${res.version} ${res.resource}`).toBeDefined();
    expect({ namespaced: res.namespaced, kind: res.kind }).toEqual({ namespaced: type!.namespaced, kind: type!.kind });
  });

  it('names each registry type at most once', () => {
    const keys = Object.values(builtin).map((res) => `${res.group}/${res.resource}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('types each address by its kind (checked by the compiler)', () => {
    expectTypeOf<ObjectOf<typeof builtin.pods>>().toEqualTypeOf<Pod>();
    expectTypeOf<ObjectOf<typeof builtin.nodes>>().toEqualTypeOf<Node>();
    expectTypeOf<ObjectOf<typeof builtin.leases>>().toEqualTypeOf<Lease>();
    expectTypeOf<ObjectOf<typeof builtin.configMaps>>().toEqualTypeOf<ConfigMap>();
    expectTypeOf<ObjectOf<typeof builtin.deployments>>().toEqualTypeOf<Deployment>();
  });
});
