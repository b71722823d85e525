// The admission chain (src/apiserver/admission/chain.ts): mutating plugins in order, each seeing
// the one before's object, one revalidation of a changed object, then the validating plugins on the
// result. A chain whose plugins all answer at once answers at once (not a promise: a Lease
// renewal's write does not await it); a plugin that answers with a promise continues the chain
// from the next plugin once it settles, in the same order, and its refusal is the chain's.
import { describe, expect, it } from 'vitest';
import { builtinRegistry, forbidden } from '../../../src/api/index.js';
import type { ApiObject } from '../../../src/apiserver/api-object.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/attributes.js';
import { AdmissionChain } from '../../../src/apiserver/admission/chain.js';
import type { AdmissionPlugin, AdmissionRequestScope } from '../../../src/apiserver/admission/plugin.js';

const configMaps = builtinRegistry().lookup('', 'v1', 'configmaps')!;
const scope: AdmissionRequestScope = { warn: () => undefined, onAbandon: () => undefined, annotate: () => undefined };
const later = <T>(value: T): Promise<T> => new Promise((resolve) => setImmediate(() => resolve(value)));

function attrs(object: ApiObject): AdmissionAttributes {
  return { operation: 'UPDATE', type: configMaps, subresource: '', namespace: 'default', name: 'x', object, oldObject: object, dryRun: false, options: undefined, user: undefined };
}

const configMap = (data: Record<string, string> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data });
const dataOf = (object: ApiObject | undefined) => object?.['data'] as Record<string, string>;

/** A mutating plugin that adds `key` to the data it sees, at once or a turn later; it records what it saw. */
function adding(key: string, seen: string[], async = false): AdmissionPlugin {
  return {
    name: `add-${key}`,
    admit(a) {
      seen.push(`admit ${key} saw ${Object.keys(dataOf(a.object)).join(',')}`);
      const next = { ...a.object!, data: { ...dataOf(a.object), [key]: 'set' } };
      return async ? later(next) : next;
    },
  };
}

/** A validating plugin that records the data it saw, at once or a turn later; `refuse` throws (or rejects). */
function checking(name: string, seen: string[], options: { async?: boolean; refuse?: boolean } = {}): AdmissionPlugin {
  return {
    name,
    validate(a) {
      seen.push(`validate ${name} saw ${Object.keys(dataOf(a.object)).join(',')}`);
      const refusal = forbidden({ group: '', resource: 'configmaps' }, 'x', `${name} refuses`);
      if (options.async) return later(undefined).then(() => (options.refuse ? Promise.reject(refusal) : undefined));
      if (options.refuse) throw refusal;
      return undefined;
    },
  };
}

describe('AdmissionChain', () => {
  it('answers at once, not with a promise, when every plugin answers at once', () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([adding('a', seen), checking('v', seen), adding('b', seen)]);
    let revalidated = 0;
    const answer = chain.run(attrs(configMap()), scope, (object) => {
      revalidated++;
      return object;
    });
    expect(answer).not.toBeInstanceOf(Promise);
    expect(dataOf(answer as ApiObject)).toEqual({ a: 'set', b: 'set' });
    expect(revalidated).toBe(1);
    expect(seen).toEqual(['admit a saw ', 'admit b saw a', 'validate v saw a,b']);
  });

  it('answers the object it was given, unrevalidated, when no plugin changes it', () => {
    const seen: string[] = [];
    const object = configMap({ k: 'v' });
    let revalidated = 0;
    const answer = new AdmissionChain([checking('v', seen)]).run(attrs(object), scope, (o) => {
      revalidated++;
      return o;
    });
    expect(answer).toBe(object);
    expect(revalidated).toBe(0);
  });

  it('throws a refusal of a plugin that answers at once, and runs no plugin after it', () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([checking('first', seen, { refuse: true }), checking('second', seen)]);
    expect(() => chain.run(attrs(configMap()), scope)).toThrow('first refuses');
    expect(seen).toEqual(['validate first saw ']);
  });

  it('continues after a plugin that answers later, in order, each seeing the one before it', async () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([
      adding('a', seen),
      adding('b', seen, true),
      adding('c', seen),
      checking('v1', seen, { async: true }),
      checking('v2', seen),
    ]);
    let revalidated = 0;
    const answer = chain.run(attrs(configMap()), scope, (object) => {
      revalidated++;
      return object;
    });
    expect(answer).toBeInstanceOf(Promise);
    // Only what comes before the first promise has run so far.
    expect(seen).toEqual(['admit a saw ', 'admit b saw a']);
    expect(dataOf(await answer)).toEqual({ a: 'set', b: 'set', c: 'set' });
    expect(revalidated).toBe(1);
    expect(seen).toEqual(['admit a saw ', 'admit b saw a', 'admit c saw a,b', 'validate v1 saw a,b,c', 'validate v2 saw a,b,c']);
  });

  it('rejects with the refusal of a plugin that answers later, and runs no plugin after it', async () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([adding('a', seen, true), checking('late', seen, { async: true, refuse: true }), checking('after', seen)]);
    await expect(chain.run(attrs(configMap()), scope)).rejects.toThrow('late refuses');
    expect(seen).toEqual(['admit a saw ', 'validate late saw a']);
  });
});
