// The term's one discovery (ctx.discovery): every loop of a term reads the same cache, and a
// CustomResourceDefinition created during the term has every resource list read again at once.
// Counted in the requests the server saw (test/client/support.ts records them).
import { NEVER, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerContext, ControllerResult, ControlLoop } from '../../../controllers/index.js';
import { silentLog, startTerm } from '../../../controllers/manager/index.js';
import { EventRecorder, type Discovery, type DiscoveryCache } from '../../../src/client/index.js';
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
