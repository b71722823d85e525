import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { mergePodSources, SourcesReadiness, type PodUpdate, type SourceEvent } from '../../../src/nodeagent/index.js';

const pod = (uid: string, extra: { rv?: string; image?: string; phase?: 'Running' | 'Pending'; deleting?: boolean } = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${uid}`, namespace: 'default', uid, ...(extra.rv ? { resourceVersion: extra.rv } : {}), ...(extra.deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}) },
  spec: { containers: [{ name: 'c', image: extra.image ?? 'img' }] },
  ...(extra.phase ? { status: { phase: extra.phase } } : {}),
});

function run(readiness?: SourcesReadiness) {
  const events = new Subject<SourceEvent>();
  const out: string[] = [];
  events.pipe(mergePodSources(readiness)).subscribe((u: PodUpdate) => out.push(`${u.type} ${u.source} ${u.pod.metadata.uid}`));
  return { events, out };
}

describe('mergePodSources', () => {
  it('replaces a source set with each snapshot: removes first, then adds, updates', () => {
    const { events, out } = run();
    events.next({ kind: 'snapshot', source: 'file', pods: [pod('a'), pod('b')] });
    events.next({ kind: 'snapshot', source: 'file', pods: [pod('b', { image: 'new' }), pod('c')] });
    expect(out).toEqual(['ADD file a', 'ADD file b', 'REMOVE file a', 'ADD file c', 'UPDATE file b']);
  });

  it('emits nothing for a repeated snapshot or a repeated delta', () => {
    const { events, out } = run();
    events.next({ kind: 'snapshot', source: 'file', pods: [pod('a')] });
    events.next({ kind: 'snapshot', source: 'file', pods: [pod('a')] });
    events.next({ kind: 'snapshot', source: 'api', pods: [pod('x', { rv: '5' })] });
    events.next({ kind: 'delta', source: 'api', op: 'set', pod: pod('x', { rv: '5' }) });
    expect(out).toEqual(['ADD file a', 'ADD api x']);
  });

  it('tells spec changes (UPDATE), deletionTimestamp (UPDATE) and status-only changes (RECONCILE) apart', () => {
    const { events, out } = run();
    events.next({ kind: 'snapshot', source: 'api', pods: [pod('x', { rv: '1' })] });
    events.next({ kind: 'delta', source: 'api', op: 'set', pod: pod('x', { rv: '2', phase: 'Running' }) });
    events.next({ kind: 'delta', source: 'api', op: 'set', pod: pod('x', { rv: '3', phase: 'Running', image: 'v2' }) });
    events.next({ kind: 'delta', source: 'api', op: 'set', pod: pod('x', { rv: '4', phase: 'Running', image: 'v2', deleting: true }) });
    events.next({ kind: 'delta', source: 'api', op: 'remove', pod: pod('x', { rv: '5' }) });
    events.next({ kind: 'delta', source: 'api', op: 'remove', pod: pod('x', { rv: '5' }) });
    expect(out).toEqual(['ADD api x', 'RECONCILE api x', 'UPDATE api x', 'UPDATE api x', 'REMOVE api x']);
  });

  it('keeps sources apart: one source’s snapshot never removes another’s pods, and a UID belongs to its first source', () => {
    const { events, out } = run();
    events.next({ kind: 'snapshot', source: 'file', pods: [pod('a')] });
    events.next({ kind: 'snapshot', source: 'http', pods: [pod('h'), pod('a')] });
    events.next({ kind: 'snapshot', source: 'http', pods: [] });
    events.next({ kind: 'snapshot', source: 'api', pods: [] });
    expect(out).toEqual(['ADD file a', 'ADD http h', 'REMOVE http h']);
  });

  it('announces readiness only after the snapshot\'s pods are out (else the pod workers take them for orphans)', () => {
    const readiness = new SourcesReadiness(['api']);
    const { events, out } = run(readiness);
    const seenAtReady: string[][] = [];
    readiness.ready$.subscribe((ready) => ready && seenAtReady.push([...out]));
    events.next({ kind: 'snapshot', source: 'api', pods: [pod('a'), pod('b')] });
    // The agent restarted with pods running: at the moment the sources are ready, both are known.
    expect(seenAtReady).toEqual([['ADD api a', 'ADD api b']]);
  });

  it('marks each source seen at its first snapshot; all ready once every expected source is seen', () => {
    const readiness = new SourcesReadiness(['file', 'api']);
    const { events } = run(readiness);
    const states: boolean[] = [];
    readiness.ready$.subscribe((ready) => states.push(ready));
    events.next({ kind: 'snapshot', source: 'file', pods: [] });
    expect(readiness.hasSeen('file')).toBe(true);
    expect(readiness.allReady()).toBe(false);
    events.next({ kind: 'snapshot', source: 'api', pods: [] });
    expect(readiness.allReady()).toBe(true);
    expect(states).toEqual([false, true]);
  });
});
