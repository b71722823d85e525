import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/index.js';
import { indexOn, sameMembers, type IndexFunc } from '../../src/client/index.js';
import { lazyObject } from '../../src/client/lazy/json-view.js';
import { lazyProtobufFramer } from '../../src/client/lazy/proto-decode.js';
import { ViewCacheWriter } from '../../src/client/lazy/view-cache.js';
import { protobufCodec, type JsonObject } from '../../src/encoding/index.js';

// An index that says which top-level members it reads (IndexFunc.reads, `indexOn`) is not asked
// again about an update whose versions have those members as the same bytes: a pod's status
// writes keep its spec-only entries (node, claims) without a look at either version.

const proto = (object: JsonObject): Pod => (lazyProtobufFramer().push(protobufCodec.frame!('MODIFIED', object)) as { object: Pod }[])[0]!.object;
const json = (object: JsonObject): Pod => lazyObject<Pod>(JSON.stringify(object), 0);
const pod = (resourceVersion: string, spec: JsonObject, status?: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'n', resourceVersion },
  spec: { containers: [{ name: 'c', image: 'i' }], ...spec },
  ...(status ? { status } : {}),
});

for (const [encoding, view] of [
  ['protobuf', proto],
  ['JSON', json],
] as const) {
  describe(`members read by an index, ${encoding} views`, () => {
    it('sameMembers: true for a spec the update left as it was, false when it changed', () => {
      const pending = view(pod('1', { nodeName: 'n1' }));
      const running = view(pod('2', { nodeName: 'n1' }, { phase: 'Running' }));
      const moved = view(pod('3', { nodeName: 'n2' }, { phase: 'Running' }));
      expect(sameMembers(pending, running, ['spec'])).toBe(true);
      expect(sameMembers(running, moved, ['spec'])).toBe(false);
      expect(sameMembers(running, moved, ['status'])).toBe(true);
      expect(sameMembers(pending, running, ['spec', 'status'])).toBe(false);
      // Absent from both is the same; from one of them, not.
      expect(sameMembers(pending, view(pod('4', { nodeName: 'n1' })), ['status'])).toBe(true);
      expect(sameMembers(pending, running, ['status'])).toBe(false);
      // Plain objects: nothing to compare bytes of, so "maybe not".
      expect(sameMembers(pod('1', {}), pod('1', {}), ['spec'])).toBe(false);
    });

    it('the cache keeps an updated object’s values unread while the members are the same bytes, and reads them again when they change', () => {
      const read: string[] = [];
      const byNode = indexOn<Pod>(['spec'], (p) => {
        read.push(p.metadata.resourceVersion!);
        return p.spec.nodeName ? [p.spec.nodeName] : [];
      });
      const cache = new ViewCacheWriter<Pod>({ node: byNode });
      cache.upsert(view(pod('1', {})));
      cache.upsert(view(pod('2', { nodeName: 'n1' })));
      cache.upsert(view(pod('3', { nodeName: 'n1' }, { phase: 'Running' })));
      cache.upsert(view(pod('4', { nodeName: 'n1' }, { phase: 'Succeeded' })));
      expect(cache.reader.byIndex('node', 'n1').map((p) => p.metadata.resourceVersion)).toEqual(['4']);
      // Added: the new version; bound: both versions; the two status writes: neither.
      expect(read).toEqual(['1', '1', '2']);
      cache.upsert(view(pod('5', { nodeName: 'n2' }, { phase: 'Succeeded' })));
      expect(read).toEqual(['1', '1', '2', '4', '5']);
      expect(cache.reader.indexKeys('node', 'n1')).toEqual([]);
      expect(cache.reader.indexKeys('node', 'n2')).toEqual(['n/p']);
      cache.remove(view(pod('6', { nodeName: 'n2' })));
      expect(cache.reader.indexKeys('node', 'n2')).toEqual([]);
    });

    it('an index that declares nothing is asked about both versions of every update, as before', () => {
      const read: string[] = [];
      const byNode: IndexFunc<Pod> = (p) => {
        read.push(p.metadata.resourceVersion!);
        return p.spec.nodeName ? [p.spec.nodeName] : [];
      };
      const cache = new ViewCacheWriter<Pod>({ node: byNode });
      cache.upsert(view(pod('1', { nodeName: 'n1' })));
      cache.upsert(view(pod('2', { nodeName: 'n1' }, { phase: 'Running' })));
      expect(read).toEqual(['1', '1', '2']);
    });
  });
}
