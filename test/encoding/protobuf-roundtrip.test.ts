import { describe, expect, it } from 'vitest';
import { builtinTypes } from '../../src/api/index.js';
import { decodeProtobuf, encodeProtobuf, type JsonObject } from '../../src/encoding/index.js';
import { MAXIMAL_BY_HAND, MODEL_OF_KIND, kindKey, maximalObject } from './support/maximal-fixtures.js';

const apiVersionOf = (t: { group: string; version: string }) => (t.group ? `${t.group}/${t.version}` : t.version);

/** The paths where two JSON values differ (a field lost, added or changed), for a readable failure. */
function differences(want: unknown, got: unknown, path = ''): string[] {
  if (Array.isArray(want) && Array.isArray(got)) {
    if (want.length !== got.length) return [`${path}: ${want.length} items, got ${got.length}`];
    return want.flatMap((item, i) => differences(item, got[i], `${path}[${i}]`));
  }
  if (want && got && typeof want === 'object' && typeof got === 'object' && !Array.isArray(want) && !Array.isArray(got)) {
    const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
    return [...keys].flatMap((key) => {
      const w = (want as JsonObject)[key];
      const g = (got as JsonObject)[key];
      if (g === undefined) return [`${path}.${key}: lost`];
      if (w === undefined) return [`${path}.${key}: appeared`];
      return differences(w, g, `${path}.${key}`);
    });
  }
  return Object.is(want, got) ? [] : [`${path}: ${JSON.stringify(want)} became ${JSON.stringify(got)}`];
}

describe('protobuf carries every field of every built-in kind', () => {
  it('has a Kubernetes model for every registry kind (add one for a new kind)', () => {
    expect(builtinTypes.map(kindKey).filter((key) => !MODEL_OF_KIND[key] && !MAXIMAL_BY_HAND[key])).toEqual([]);
  });

  it.each(builtinTypes.map((t) => [kindKey(t), t] as const))('%s: maximal JSON → protobuf → the same JSON', (key, type) => {
    const model = MODEL_OF_KIND[key];
    const byHand = MAXIMAL_BY_HAND[key];
    if (!model && !byHand) throw new Error(`no Kubernetes model for ${key}`);
    const object: JsonObject = { kind: type.kind, apiVersion: apiVersionOf(type), ...(model ? maximalObject(model) : byHand!()) };
    const decoded = decodeProtobuf(encodeProtobuf(object));
    expect(differences(object, decoded), 'fields protobuf does not carry').toEqual([]);
    expect(decoded).toEqual(object);
  });

  it('fails when a field is not in the messages (the check above is not vacuous)', () => {
    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', notAField: 1 }] } };
    expect(differences(pod, decodeProtobuf(encodeProtobuf(pod)))).toEqual(['.spec.containers[0].notAField: lost']);
  });
});
