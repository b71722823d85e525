/**
 * A watch's socket budget (src/apiserver/handlers/watch.ts, docs/watch.md#slow-clients): events
 * committed in one loop turn go out in that turn up to the budget, although they pass the
 * socket's 16 KiB high-water mark — a busy server commits many per turn, and a watch that could
 * only send a high-water mark's worth a turn fell behind and was ended. The burst is committed
 * to the memory store in one synchronous run, so no drain can come in between: what the watch
 * holds for the client is decided in that turn alone. With the budget set to 0 (the app option
 * `watchSocketBudgetBytes`) the old rule holds: full at the high-water mark, and the same burst
 * ends the watch.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';

let cluster: TestCluster;
let agent: Agent;

beforeAll(async () => {
  // Five held events at most: a burst the socket did not take would end the watch at once.
  cluster = await startTestCluster({ namespaces: ['burst'], apiServer: { watchBufferEvents: 5 } });
  agent = new Agent({ connect: { ca: cluster.caPem } });
});
afterAll(async () => {
  await agent?.close();
  await cluster?.stop();
});

/** A JSON watch's lines, read on demand: `until(count)` reads until `count` events came in all, or the server ended it. */
function watchReader(body: AsyncIterable<Buffer>) {
  const chunks = body[Symbol.asyncIterator]();
  const events: { type: string; name: string }[] = [];
  let buffered = '';
  return {
    events,
    async until(count: number): Promise<void> {
      while (events.length < count) {
        const newline = buffered.indexOf('\n');
        if (newline >= 0) {
          const event = JSON.parse(buffered.slice(0, newline)) as { type: string; object: { metadata: { name: string } } };
          buffered = buffered.slice(newline + 1);
          events.push({ type: event.type, name: event.object.metadata.name });
          continue;
        }
        const next = await chunks.next();
        if (next.done === true) return;
        buffered += next.value.toString();
      }
    },
  };
}

/** ConfigMaps `names` in `namespace`, ~2 KiB each, and a JSON watch of them from now on. */
async function watchedConfigMaps(on: TestCluster, namespace: string, names: readonly string[]) {
  const blob = 'x'.repeat(2048);
  for (const name of names) await on.client.create(builtin.configMaps, { metadata: { name, namespace }, data: { blob } });
  const listed = await on.store.list(`${on.store.prefix}core/configmaps/${namespace}/`);
  const res = await request(`${on.url}/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${listed.revision}`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${on.token}` },
    bodyTimeout: 0,
  });
  expect(res.statusCode).toBe(200);
  const watch = watchReader(res.body as AsyncIterable<Buffer>);
  // A first event through the watch: it is live, so what comes next counts against the buffer.
  await on.client.create(builtin.configMaps, { metadata: { name: 'first', namespace } });
  await watch.until(1);
  expect(watch.events).toEqual([{ type: 'ADDED', name: 'first' }]);
  return { watch, listed, close: () => res.body.destroy() };
}

/** Updates every listed object in one turn: each commits inside its call, the awaits are microtasks. */
async function burst(on: TestCluster, items: readonly { key: string; value: Uint8Array; modRevision: number }[]): Promise<void> {
  for (const item of items) {
    const object = JSON.parse(Buffer.from(item.value).toString()) as { data: Record<string, string> };
    object.data = { ...object.data, burst: 'yes' };
    await on.store.update(item.key, Buffer.from(JSON.stringify(object)), item.modRevision);
  }
}

const names = Array.from({ length: 40 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);

describe('a watch fed a burst in one loop turn', () => {
  it('sends every event of a burst past the high-water mark, and stays open', async () => {
    // About 2 KiB each: the burst is about 90 KiB, several high-water marks, under the budget.
    const { watch, listed, close } = await watchedConfigMaps(cluster, 'burst', names);
    await burst(cluster, listed.items);
    await watch.until(1 + names.length);
    expect(watch.events.slice(1)).toEqual(names.map((name) => ({ type: 'MODIFIED', name })));

    // Still open: the next change comes through the same watch.
    await cluster.client.create(builtin.configMaps, { metadata: { name: 'after', namespace: 'burst' } });
    await watch.until(2 + names.length);
    expect(watch.events[watch.events.length - 1]).toEqual({ type: 'ADDED', name: 'after' });
    close();
  });

  it('with a budget of 0, is full at the high-water mark and ended by the same burst', async () => {
    const strict = await startTestCluster({ namespaces: ['strict'], apiServer: { watchBufferEvents: 5, watchSocketBudgetBytes: 0 } });
    try {
      const { watch, listed } = await watchedConfigMaps(strict, 'strict', names);
      await burst(strict, listed.items);
      // Read to the end: the server ends the watch before the whole burst is sent. How much went
      // out first is the socket's (Node 20 takes a few events past the TLS layer before it says
      // full; Node 24 none), so only the end is asserted.
      await watch.until(Number.POSITIVE_INFINITY);
      const got = watch.events.length - 1;
      expect(got).toBeLessThan(names.length);
    } finally {
      await strict.stop();
    }
  });
});
