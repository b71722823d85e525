// The pod triggers the endpoint loops share: a pod change names the Services that select it now
// and those it left; changes that cannot move an endpoint name none; with a batching period
// (--endpoint-updates-batch-period) a burst of changes names each Service once, when the period
// ends — on virtual time.
import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Pod, Service } from '../../../src/api/index.js';
import type { Informer, InformerEvent } from '../../../src/client/index.js';
import { podServiceTriggers } from '../../../controllers/index.js';
import { VirtualTime } from '../../../src/testing/index.js';
import { pod, service } from './network-fixtures.js';

function fakes(services: Service[]) {
  const events = new Subject<InformerEvent<Pod>>();
  const pods = { events$: events, synced$: new BehaviorSubject(true) } as unknown as Informer<Pod>;
  const serviceInformer = { store: { byIndex: (_: string, ns: string) => services.filter((s) => s.metadata.namespace === ns) } } as unknown as Informer<Service>;
  return { events, pods, services: serviceInformer };
}

const withRv = (p: Pod, rv: string, patch: Partial<Pod> = {}): Pod => ({ ...p, ...patch, metadata: { ...p.metadata, ...patch.metadata, resourceVersion: rv } });

describe('podServiceTriggers', () => {
  const web = service('web', 'ns', { selector: { app: 'web' } });
  const api = service('api', 'ns', { selector: { app: 'api' } });
  const manual = service('manual', 'ns', {});

  it('names the Services selecting the pod, and those it left on a label change; nothing for an irrelevant change', () => {
    const f = fakes([web, api, manual]);
    const keys: string[] = [];
    podServiceTriggers(f.pods, f.services, { batchPeriodMs: 0 }).events$.subscribe((key) => keys.push(key));
    const a = withRv(pod('a', 'ns', { labels: { app: 'web' } }), '1');
    f.events.next({ type: 'added', object: a });
    expect(keys).toEqual(['ns/web']);
    const moved = withRv(a, '2', { metadata: { ...a.metadata, labels: { app: 'api' } } });
    f.events.next({ type: 'updated', old: a, object: moved });
    expect(keys.slice(1).sort()).toEqual(['ns/api', 'ns/web']);
    const annotated = withRv(moved, '3', { metadata: { ...moved.metadata, annotations: { note: 'x' } } });
    f.events.next({ type: 'updated', old: moved, object: annotated });
    expect(keys).toHaveLength(3);
    const ready = withRv(annotated, '4', { status: { conditions: [{ type: 'Ready', status: 'True' }] } } as Partial<Pod>);
    f.events.next({ type: 'updated', old: annotated, object: ready });
    expect(keys.at(-1)).toBe('ns/api');
  });

  it('reads nothing of a pod change but its namespace where no Service is', () => {
    const f = fakes([web, api]);
    const keys: string[] = [];
    podServiceTriggers(f.pods, f.services, { batchPeriodMs: 0 }).events$.subscribe((key) => keys.push(key));
    // Every other read of the pods is counted (a cache's view would decode it).
    const read: string[] = [];
    const watched = (p: Pod): Pod => {
      const metadata = new Proxy(p.metadata, {
        get(target, key) {
          if (key !== 'namespace' && typeof key === 'string') read.push(`metadata.${key}`);
          return Reflect.get(target, key) as unknown;
        },
      });
      return new Proxy(p, {
        get(target, key) {
          if (key === 'metadata') return metadata;
          if (typeof key === 'string') read.push(key);
          return Reflect.get(target, key) as unknown;
        },
      });
    };
    const before = withRv(pod('a', 'elsewhere', { labels: { app: 'web' } }), '1');
    const after = withRv(before, '2', { status: { phase: 'Running', podIP: '10.0.0.1' } } as Partial<Pod>);
    f.events.next({ type: 'added', object: watched(before) });
    f.events.next({ type: 'updated', old: watched(before), object: watched(after) });
    expect(keys).toEqual([]);
    expect(read).toEqual([]);
    // Where Services are, the change is looked at as before.
    f.events.next({ type: 'updated', old: watched(withRv(pod('b', 'ns'), '1')), object: watched(withRv(pod('b', 'ns'), '2', { status: { phase: 'Running' } } as Partial<Pod>)) });
    expect(keys).toEqual(['ns/web']);
    expect(read.length).toBeGreaterThan(0);
  });

  it('holds keys for the batching period and names each Service once per batch', async () => {
    const time = new VirtualTime();
    const f = fakes([web, api]);
    const keys: string[] = [];
    podServiceTriggers(f.pods, f.services, { batchPeriodMs: 1000, scheduler: time }).events$.subscribe((key) => keys.push(key));
    for (let i = 0; i < 50; i++) f.events.next({ type: 'added', object: withRv(pod(`p${i}`, 'ns', { labels: { app: i % 2 ? 'web' : 'api' } }), String(i)) });
    expect(keys).toEqual([]);
    await time.advanceBy(999);
    expect(keys).toEqual([]);
    await time.advanceBy(1);
    expect(keys.sort()).toEqual(['ns/api', 'ns/web']);
  });
});
