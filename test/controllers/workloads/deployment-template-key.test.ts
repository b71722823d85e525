// The Deployment loop's template keys (controllers/deployment/template-key.ts): "the same template
// but for pod-template-hash" answered by comparing strings, with exactly equalIgnoringHash's
// (upstream's EqualIgnoreHash) answers — on plain objects and on the lazy protobuf views the
// manager's caches hand out — and remembered per uid and generation, not per version.
import { describe, expect, it } from 'vitest';
import type { PodTemplateSpec } from '../../../src/api/index.js';
import { lazyProtobufFramer } from '../../../src/client/lazy/proto-decode.js';
import { protobufCodec, type JsonObject } from '../../../src/encoding/index.js';
import { equalIgnoringHash } from '../../../controllers/deployment/revisions.js';
import { templateKey, TemplateKeys, type TemplateOwner } from '../../../controllers/deployment/template-key.js';

const base = (): PodTemplateSpec =>
  ({
    metadata: { labels: { app: 'web', tier: 'front' }, annotations: { note: 'a' } },
    spec: {
      containers: [{ name: 'app', image: 'registry.example/web:1', args: ['--port', '80'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      terminationGracePeriodSeconds: 30,
    },
  }) as PodTemplateSpec;
const edit = (change: (t: Record<string, any>) => void): PodTemplateSpec => {
  const t = structuredClone(base()) as Record<string, any>;
  change(t);
  return t as PodTemplateSpec;
};

/** Pairs of templates and whether they are the same but for pod-template-hash. */
const cases: [string, PodTemplateSpec | undefined, PodTemplateSpec | undefined, boolean][] = [
  ['identical', base(), base(), true],
  ['one has a pod-template-hash', base(), edit((t) => (t.metadata.labels['pod-template-hash'] = 'abc12')), true],
  ['different hashes', edit((t) => (t.metadata.labels['pod-template-hash'] = 'x')), edit((t) => (t.metadata.labels['pod-template-hash'] = 'y')), true],
  ['members in another order', base(), { spec: base().spec, metadata: { annotations: { note: 'a' }, labels: { tier: 'front', app: 'web' } } } as PodTemplateSpec, true],
  ['no labels against only a hash', edit((t) => delete t.metadata.labels), edit((t) => (t.metadata.labels = { 'pod-template-hash': 'h' })), true],
  ['no metadata against only a hash', edit((t) => delete t.metadata), edit((t) => (t.metadata = { labels: { 'pod-template-hash': 'h' } })), true],
  ['both absent', undefined, undefined, true],
  ['a label value', base(), edit((t) => (t.metadata.labels.tier = 'back')), false],
  ['a label more', base(), edit((t) => (t.metadata.labels.extra = 'x')), false],
  ['an annotation value', base(), edit((t) => (t.metadata.annotations.note = 'b')), false],
  ['no annotations', base(), edit((t) => delete t.metadata.annotations), false],
  ['a container image', base(), edit((t) => (t.spec.containers[0].image = 'registry.example/web:2')), false],
  ['an argument order', base(), edit((t) => (t.spec.containers[0].args = ['80', '--port'])), false],
  ['a resource quantity', base(), edit((t) => (t.spec.containers[0].resources.requests.cpu = '20m')), false],
  ['a number', base(), edit((t) => (t.spec.terminationGracePeriodSeconds = 31)), false],
  ['a number against its string', base(), edit((t) => (t.spec.terminationGracePeriodSeconds = '30')), false],
  ['0 against -0', edit((t) => (t.spec.terminationGracePeriodSeconds = 0)), edit((t) => (t.spec.terminationGracePeriodSeconds = -0)), false],
  ['a member undefined against none', base(), edit((t) => (t.spec.hostname = undefined)), false],
  ['null against absent', base(), edit((t) => (t.spec.hostname = null)), false],
  ['a string that looks like structure', edit((t) => (t.metadata.labels.app = 'a","b":"c')), edit((t) => Object.assign(t.metadata.labels, { app: 'a', b: 'c' })), false],
  ['one absent', base(), undefined, false],
];

const owner = (template: PodTemplateSpec | undefined, uid?: string, generation?: number): TemplateOwner => ({ metadata: { uid, generation }, spec: { template } });

describe('template keys', () => {
  it.each(cases)('%s: the keys agree with equalIgnoringHash', (_name, a, b, same) => {
    expect(equalIgnoringHash(a, b)).toBe(same);
    const [ka, kb] = [templateKey(a), templateKey(b)];
    expect(ka).not.toBeNull();
    expect(kb).not.toBeNull();
    expect(ka === kb).toBe(same);
    expect(new TemplateKeys().same(owner(a, 'a', 1), owner(b, 'b', 1))).toBe(same);
  });

  it('reads a template through the cache’s lazy protobuf views as from a plain object', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', uid: 'd-1', generation: 2, resourceVersion: '7' }, spec: { selector: { matchLabels: { app: 'web' } }, template: base() } };
    const set = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-abc12', namespace: 'ns', uid: 'rs-1', generation: 1, resourceVersion: '8' },
      spec: { selector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc12' } }, template: edit((t) => (t.metadata.labels['pod-template-hash'] = 'abc12')) },
    };
    const viewOf = (object: object) => (lazyProtobufFramer().push(protobufCodec.frame!('MODIFIED', object as JsonObject)) as { object: TemplateOwner }[])[0]!.object;
    const [d, rs] = [viewOf(deployment), viewOf(set)];
    expect(templateKey(d.spec.template)).toBe(templateKey(deployment.spec.template as PodTemplateSpec));
    expect(new TemplateKeys().same(rs, d)).toBe(true);
    const other = viewOf({ ...set, metadata: { ...set.metadata, uid: 'rs-2' }, spec: { ...set.spec, template: edit((t) => (t.spec.containers[0].image = 'registry.example/web:2')) } });
    expect(new TemplateKeys().same(other, d)).toBe(false);
  });

  it('reads an object’s template once per generation: a status change does not read it again, a spec change does', () => {
    let reads = 0;
    const counted = (template: PodTemplateSpec, generation: number): TemplateOwner => ({
      metadata: { uid: 'rs-1', generation },
      spec: {
        get template() {
          reads += 1;
          return template;
        },
      },
    });
    const keys = new TemplateKeys();
    const deployment = owner(base(), 'd-1', 1);
    expect(keys.same(counted(base(), 1), deployment)).toBe(true);
    // New versions of the set at the same generation (its status written): the key is remembered.
    expect(keys.same(counted(base(), 1), deployment)).toBe(true);
    expect(keys.same(counted(base(), 1), deployment)).toBe(true);
    expect(reads).toBe(1);
    // The spec changed: a new generation, read again.
    expect(keys.same(counted(edit((t) => (t.spec.containers[0].image = 'x')), 2), deployment)).toBe(false);
    expect(reads).toBe(2);
    // Without a uid or a generation (not from the server), nothing is remembered.
    const anonymous = { metadata: {}, spec: { get template() { reads += 1; return base(); } } } satisfies TemplateOwner;
    keys.keyOf(anonymous);
    keys.keyOf(anonymous);
    expect(reads).toBe(4);
  });

  it('remembers at most its limit of objects, the oldest forgotten first', () => {
    const keys = new TemplateKeys(3);
    for (let i = 0; i < 10; i++) keys.keyOf(owner(base(), `uid-${i}`, 1));
    expect(keys.size).toBe(3);
    let reads = 0;
    const counted = (uid: string): TemplateOwner => ({ metadata: { uid, generation: 1 }, spec: { get template() { reads += 1; return base(); } } });
    keys.keyOf(counted('uid-9'));
    expect(reads).toBe(0);
    keys.keyOf(counted('uid-0'));
    expect(reads).toBe(1);
  });

  it('compares deeply what a key cannot write (a value that is not JSON’s)', () => {
    const odd = (at: Date) => edit((t) => (t.metadata.annotations = { when: at } as never));
    expect(templateKey(odd(new Date(1)))).toBeNull();
    const keys = new TemplateKeys();
    expect(keys.same(owner(odd(new Date(1)), 'a', 1), owner(odd(new Date(1)), 'b', 1))).toBe(true);
    expect(keys.same(owner(odd(new Date(1)), 'c', 1), owner(odd(new Date(2)), 'd', 1))).toBe(false);
  });
});
