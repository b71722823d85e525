// The term's one discovery (ctx.discovery): every loop of a term reads the same cache, and a
// CustomResourceDefinition created during the term has every resource list read again at once.
// Counted in the requests the server saw (test/client/support.ts records them).
import { NEVER, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerContext, ControllerResult, ControlLoop } from '../../../controllers/index.js';
import { silentLog, startTerm } from '../../../controllers/manager/index.js';
import { builtin, EventRecorder, type Discovery, type DiscoveryCache } from '../../../src/client/index.js';
import { startClientTestServer, type ClientTestServer } from '../../client/support.js';
import { waitUntil } from '../../support/wait.js';
import { createOpenCrd } from '../../support/crds.js';

let t: ClientTestServer;
beforeAll(async () => {
  t = await startClientTestServer();
});
afterAll(() => t.close());

const listReads = (path: string) => t.requests.filter((url) => url === path).length;

describe("a term's discovery", () => {
  it('is one cache for every loop, read again in full when a CRD is created', async () => {
    const caches: DiscoveryCache[] = [];
    const emitted: Discovery[] = [];
    const probe =
      (follow: boolean): ControlLoop =>
      (ctx: ControllerContext): Observable<ControllerResult<unknown>> => {
        caches.push(ctx.discovery);
        if (follow) ctx.discovery.discoveries$.subscribe((d) => emitted.push(d));
        return NEVER;
      };
    const events = new EventRecorder({ client: t.client, component: 'term-test' });
    const term = startTerm({
      loops: new Map([
        ['a', probe(true)],
        ['b', probe(false)],
      ]),
      client: t.client,
      drainTimeoutMs: 1_000,
      events,
      log: silentLog,
    });
    try {
      expect(caches).toHaveLength(2);
      expect(caches[0]).toBe(caches[1]);
      await waitUntil(() => emitted.length === 1, 'the first discovery');
      // The CRD and APIService watches have listed: their first objects are not changes.
      await waitUntil(() => t.watches.size >= 2, 'the CRD and APIService watches');
      const appsReads = listReads('/apis/apps/v1');
      // Read once: the objects the CRD and APIService watches list at start asked for no second read.
      expect(appsReads).toBe(1);

      await createOpenCrd(t.client, { group: 'term.example.com', plural: 'probes', kind: 'Probe' });
      // A list read again that no refresh (30 s: new group versions only) would read before 5 min: the CRD's event did it.
      await waitUntil(() => listReads('/apis/apps/v1') > appsReads, 'every list read again');
      await waitUntil(() => emitted.some((d) => d.resources.some((r) => r.group === 'term.example.com' && r.resource === 'probes')), 'the new type emitted');
    } finally {
      await term.stop();
      events.stop();
    }
  });
});

describe("a term's readiness", () => {
  it('waits for discovery when a loop asked for it, so informers registered per discovered type never turn it back to false', async () => {
    // Discovery's requests wait at a gate until the test opens it; the informers' do not.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const discoveryClient = t.client.derive({ throttle: () => gate });
    const registered: string[] = [];
    let informers: ControllerContext['informers'] | undefined;
    // The garbage collector's shape: an informer per discovered type, registered when discovery answers.
    const perType: ControlLoop = (ctx) => {
      informers = ctx.informers;
      ctx.informers.informer(builtin.configMaps).events$.subscribe();
      ctx.discovery.discoveries$.subscribe((d) => {
        for (const r of d.resources.filter((r) => r.group === 'apps' && r.resource === 'deployments')) {
          ctx.informers.informer(builtin.deployments).events$.subscribe();
          registered.push(r.resource);
        }
      });
      return NEVER;
    };
    const events = new EventRecorder({ client: t.client, component: 'term-ready-test' });
    const term = startTerm({ loops: new Map([['per-type', perType]]), client: t.client, discoveryClient, drainTimeoutMs: 1_000, events, log: silentLog });
    try {
      // Every informer asked for so far (the ConfigMaps') has synced while discovery waits at the gate.
      await waitUntil(() => informers?.hasSynced() === true, 'the ConfigMap informer synced');
      expect(registered).toEqual([]);
      expect(term.synced()).toBe(false);
      open();
      await waitUntil(() => term.synced(), 'ready');
      expect(registered).toEqual(['deployments']);
    } finally {
      open();
      await term.stop();
      events.stop();
    }
  });
});
