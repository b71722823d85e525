// The runtime's live view of its loops (controllers/runtime/loop-activity.ts) on the secure
// port's /live/controllers: Server-Sent Events, a snapshot first (identity, leadership, each
// queue's counters) and every reconcile's result (key, outcome, duration, the error of a retry),
// behind the port's authorization like every path not opened by the allow-list. Against a real
// svc-apiserver over HTTPS.
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controller, runControllers, type ControllerRuntime, type ControllersSnapshot, type ControlLoop, type ReconcileRecord } from '../../../controllers/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { RequestAuth } from '../../../src/serving/index.js';
import { startCluster, type Cluster } from '../manager/support.js';

/** Reconciles ConfigMaps of `namespace`: one named `bad` fails every time. */
const loop =
  (namespace: string): ControlLoop =>
  (ctx) =>
    controller({
      ...ctx.controllerDefaults(),
      name: ctx.name,
      for: ctx.informers.informer(builtin.configMaps, { namespace }),
      backoff: { base: 50, max: 200 },
      reconcile: async (key) => {
        if (key.endsWith('/bad')) throw new Error('bad is never good');
      },
    });

/** Reads SSE events from `url` until `until` says it has what it needs; then hangs up. */
async function readEvents(url: string, agent: Agent, until: (events: { event: string; data: unknown }[]) => boolean, onFirst?: () => Promise<unknown>): Promise<{ event: string; data: unknown }[]> {
  const res = await request(url, { dispatcher: agent });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/event-stream');
  const events: { event: string; data: unknown }[] = [];
  let buffered = '';
  try {
    for await (const chunk of res.body) {
      buffered += (chunk as Buffer).toString();
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) {
          events.push({ event, data: JSON.parse(data) as unknown });
          // The server has subscribed this reader: what happens from now on reaches it.
          if (events.length === 1) await onFirst?.();
        }
      }
      if (until(events)) break;
    }
  } finally {
    res.body.destroy();
  }
  return events;
}

describe('/live/controllers', () => {
  let cluster: Cluster;
  let client: Client;
  let runtime: ControllerRuntime;
  const agent = new Agent({ connect: { rejectUnauthorized: false } }); // the default self-signed pair
  const namespace = 'live-loops';

  beforeAll(async () => {
    cluster = await startCluster();
    client = cluster.client;
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    runtime = await runControllers({
      name: 'watched',
      client,
      controllers: { 'config-loop': loop(namespace) },
      election: false,
      // The stream opened to anyone here, as an operator may open it with the allow-list.
      serving: { port: 0, bindAddress: '127.0.0.1', auth: new RequestAuth({ alwaysAllowPaths: ['/healthz', '/live/controllers'] }) },
      signals: false,
    });
    await runtime.firstTerm;
  });
  afterAll(async () => {
    await runtime?.close();
    await cluster?.close();
    await agent.close();
  });

  it('streams a snapshot of the loops and every reconcile as it happens, with failures and their errors', async () => {
    const events = await readEvents(
      `${runtime.serving!.url}/live/controllers`,
      agent,
      (events) => {
        const results = events.filter((e) => e.event === 'result').map((e) => e.data as ReconcileRecord);
        return results.some((r) => r.key === `${namespace}/good`) && results.filter((r) => r.key === `${namespace}/bad`).length >= 2;
      },
      // Written once the stream's first snapshot came: the reader is subscribed.
      async () => {
        await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good', namespace } });
        await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', namespace } });
      },
    );
    const snapshot = events[0]!;
    expect(snapshot.event).toBe('snapshot');
    const first = snapshot.data as ControllersSnapshot;
    expect(first.identity).toBe(runtime.identity);
    expect(first.leading).toBe(true);
    expect(first.loops).toEqual(['config-loop']);
    const results = events.filter((e) => e.event === 'result').map((e) => e.data as ReconcileRecord);
    const good = results.find((r) => r.key === `${namespace}/good`)!;
    expect(good).toMatchObject({ loop: 'config-loop', controller: 'config-loop', outcome: 'awaitChange', attempts: 1 });
    expect(good.durationMs).toBeGreaterThanOrEqual(0);
    const bad = results.filter((r) => r.key === `${namespace}/bad`);
    expect(bad.map((r) => r.outcome)).toEqual(['retry', 'retry']);
    expect(bad.map((r) => r.attempts)).toEqual([1, 2]);
    expect(bad[0]!.error).toBe('bad is never good');
    expect(bad[0]!.afterMs).toBeGreaterThan(0);
    // The counters the next snapshots carry: retries counted, results counted.
    const later = await readEvents(`${runtime.serving!.url}/live/controllers`, agent, (e) => e.some((x) => x.event === 'snapshot'));
    const queue = (later[0]!.data as ControllersSnapshot).queues.find((q) => q.name === 'config-loop')!;
    expect(queue.retries).toBeGreaterThanOrEqual(2);
    expect(queue.results).toBeGreaterThanOrEqual(3);
    expect(queue.adds).toBeGreaterThanOrEqual(2);
  });

  it('is behind the port\'s authorization by default: anonymous gets a 403 Status, writes a 405', async () => {
    const closed = await runControllers({ name: 'closed', client, controllers: {}, election: false, serving: { port: 0, bindAddress: '127.0.0.1' }, signals: false });
    try {
      const res = await request(`${closed.serving!.url}/live/controllers`, { dispatcher: agent });
      expect(res.statusCode).toBe(403);
      expect(await res.body.json()).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403 });
      const post = await request(`${runtime.serving!.url}/live/controllers`, { dispatcher: agent, method: 'POST' });
      expect(post.statusCode).toBe(405);
      expect(await post.body.json()).toMatchObject({ kind: 'Status', code: 405 });
    } finally {
      await closed.close();
    }
  });
});
