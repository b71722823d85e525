// The FieldsV1 encoder and the wire form of a set a write took paths out of: both must give what
// sorting the set and building its trie path by path gives, node for node and key for key — the
// managedFields a client reads (and the stored bytes) are that text.
import { describe, expect, it } from 'vitest';
import { podSchema } from '../../src/api/index.js';
import { fieldSetOf, fieldSetWithout, fieldsV1Of, sharedFieldSet, toFieldsV1, type FieldSet } from '../../src/apiserver/writes/field-set.js';
import { decodeProtobuf, encodeProtobuf } from '../../src/encoding/index.js';
import { seededRandom } from '../support/prng.js';

type Trie = Record<string, unknown>;

/** The oracle: every path looked up from the root in sorted order; a member followed by its child is marked. */
function trieOf(set: ReadonlySet<string>): Trie {
  const root: Trie = {};
  const sorted = [...set].sort();
  sorted.forEach((path, i) => {
    let node = root;
    for (const element of path.split('\n')) {
      let child = Object.hasOwn(node, element) ? (node[element] as Trie) : undefined;
      if (child === undefined) Object.defineProperty(node, element, { value: (child = {}), writable: true, enumerable: true, configurable: true });
      node = child;
    }
    if (Object.keys(node).length > 0 || sorted[i + 1]?.startsWith(`${path}\n`)) node['.'] = {};
  });
  return root;
}

const text = (wire: unknown) => JSON.stringify(wire);

// Elements as walks make them, and as a client's FieldsV1 may hold them: `__proto__`, a key that
// reads as an array index, and (not plain) a field name holding a raw control character.
const PLAIN = ['f:a', 'f:b', 'f:ab', 'k:{"name":"c"}', 'v:"x"', 'f:__proto__', '7', '12'];
const CONTROL = ['f:a\u0001', 'f:a\t'];

function randomSet(random: () => number, elements: readonly string[]): FieldSet {
  const set: FieldSet = new Set();
  const count = 1 + Math.floor(random() * 14);
  for (let i = 0; i < count; i++) {
    const depth = 1 + Math.floor(random() * 4);
    const path = Array.from({ length: depth }, () => elements[Math.floor(random() * elements.length)]!);
    set.add(path.join('\n'));
  }
  return set;
}

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'x' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }] },
  spec: {
    containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {}, terminationMessagePath: '/dev/termination-log' }],
    restartPolicy: 'Always',
    dnsPolicy: 'ClusterFirst',
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  },
  status: { phase: 'Pending', qosClass: 'BestEffort', conditions: [{ type: 'PodScheduled', status: 'True' }] },
};

describe('FieldsV1 encoding', () => {
  it('is the oracle’s trie, key for key, for a pod and for sets of odd elements', () => {
    expect(text(toFieldsV1(fieldSetOf(pod, podSchema)))).toBe(text(trieOf(fieldSetOf(pod, podSchema))));
    const random = seededRandom(26);
    for (let i = 0; i < 2_000; i++) {
      const set = randomSet(random, i % 2 === 0 ? PLAIN : [...PLAIN, ...CONTROL]);
      expect(text(toFieldsV1(set)), [...set].join(' | ')).toBe(text(trieOf(set)));
    }
  });
});

describe('a field set without some of its paths', () => {
  it('is the set less those paths, its wire form the oracle’s, sharing the subtrees no dropped path enters', () => {
    const set = fieldSetOf(pod, podSchema);
    const wire = fieldsV1Of(set);
    const before = text(wire);
    const out = fieldSetWithout(set, ['f:status\nf:phase', 'f:status\nf:notThere']);
    expect([...out]).toEqual([...set].filter((path) => path !== 'f:status\nf:phase'));
    expect(text(fieldsV1Of(out))).toBe(text(trieOf(out)));
    expect(fieldsV1Of(out)['f:spec']).toBe(wire['f:spec']);
    expect(fieldsV1Of(out)['f:metadata']).toBe(wire['f:metadata']);
    // The set and the wire form it came from are as they were: both are shared.
    expect(text(wire)).toBe(before);
    expect(set.has('f:status\nf:phase')).toBe(true);
  });

  it('keeps a member whose descendants stay as their ancestor, unmarked; drops one left with nothing', () => {
    const set = fieldSetOf(pod, podSchema);
    fieldsV1Of(set);
    const item = 'f:spec\nf:containers\nk:{"name":"c"}';
    const unmarked = fieldSetWithout(set, [item]);
    expect(text(fieldsV1Of(unmarked))).toBe(text(trieOf(unmarked)));
    expect(Object.hasOwn((fieldsV1Of(unmarked)['f:spec'] as Trie)['f:containers'] as Trie, 'k:{"name":"c"}')).toBe(true);
    const below = [...set].filter((path) => path.startsWith(`${item}\n`));
    const gone = fieldSetWithout(unmarked, below);
    expect(text(fieldsV1Of(gone))).toBe(text(trieOf(gone)));
    // A member left without descendants is a leaf again: the toleration item loses its fields only.
    const toleration = [...set].filter((path) => path.startsWith('f:spec\nf:tolerations\nk:') && path.split('\n').length > 3);
    const leaf = fieldSetWithout(set, toleration);
    expect(text(fieldsV1Of(leaf))).toBe(text(trieOf(leaf)));
  });

  it('gives the oracle’s trie for random sets and drops, one after another, plain or not', () => {
    const random = seededRandom(5_000);
    for (let i = 0; i < 2_000; i++) {
      const set = randomSet(random, i % 3 === 0 ? [...PLAIN, ...CONTROL] : PLAIN);
      const wire = fieldsV1Of(set);
      const before = text(wire);
      const paths = [...set];
      const dropped = paths.filter(() => random() < 0.4);
      dropped.push('f:zz');
      const out = fieldSetWithout(set, dropped);
      const gone = new Set(dropped);
      expect([...out]).toEqual(paths.filter((path) => !gone.has(path)));
      expect(text(fieldsV1Of(out)), `${paths.join(' | ')} less ${dropped.join(' | ')}`).toBe(text(trieOf(out)));
      expect(text(wire)).toBe(before);
      const again = fieldSetWithout(out, [...out].filter(() => random() < 0.5));
      expect(text(fieldsV1Of(again))).toBe(text(trieOf(again)));
    }
  });

  it('derives from a set many objects share by its text (decoded, never encoded here)', () => {
    const set = fieldSetOf(pod, podSchema);
    const decoded = sharedFieldSet(JSON.parse(text(trieOf(set))));
    const out = fieldSetWithout(decoded, ['f:status\nf:phase', 'f:metadata\nf:labels\nf:app']);
    expect(text(fieldsV1Of(out))).toBe(text(trieOf(out)));
    expect(fieldsV1Of(out)['f:spec']).toBe(fieldsV1Of(decoded)['f:spec']);
  });
});

describe('a wire form on the protobuf wire', () => {
  // An object of the server's answer, as a node sends it back: a ConfigMap carries managedFields as a Lease does.
  const withEntry = (fieldsV1: unknown) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T09:00:00Z', fieldsType: 'FieldsV1', fieldsV1 }] },
    data: { a: 'b' },
  });
  const sentBack = (fieldsV1: unknown) => {
    const body = decodeProtobuf(encodeProtobuf(withEntry(fieldsV1)), { sharedJson: true });
    return ((body['metadata'] as Trie)['managedFields'] as Trie[])[0]!['fieldsV1'];
  };

  it('decodes, in a body that sends it back, to the encoder’s own object; a trie made otherwise is parsed', () => {
    const set = new Set(['f:data\nf:a', 'f:metadata\nf:labels\nf:app']);
    const wire = fieldsV1Of(set);
    expect(sentBack(wire)).toBe(wire);
    const made = toFieldsV1(new Set(['f:data\nf:b']));
    expect(sentBack(made)).not.toBe(made);
    expect(sentBack(made)).toEqual(made);
  });
});
