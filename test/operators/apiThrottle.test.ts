// --svc-api-qps / --svc-api-burst: the client's throttle hook filled with the rateLimit operator,
// against a real API server. Virtual time decides when tokens come, so the test counts what
// reached the server at each instant instead of measuring durations.
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiThrottle } from '../../operators/index.js';
import { builtin } from '../../src/client/index.js';
import { startClientTestServer, type ClientTestServer } from '../client/support.js';

describe('the API rate limit', () => {
  let t: ClientTestServer;
  beforeEach(async () => {
    t = await startClientTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  const listsSeen = () => t.requests.filter((url) => url.startsWith('/api/v1/configmaps?')).map((url) => new URL(url, 'http://x').searchParams.get('labelSelector'));

  it('lets a burst through, then one request per 1/qps, in the order they were made', async () => {
    const scheduler = new VirtualTimeScheduler();
    const waits: number[] = [];
    const client = t.newClient({ throttle: apiThrottle({ qps: 10, burst: 3, scheduler, onWait: (ms) => waits.push(ms) }) });
    const calls = [1, 2, 3, 4, 5, 6].map((n) => client.list(builtin.configMaps, { labelSelector: `n=${n}` }));
    await Promise.all(calls.slice(0, 3));
    expect(listsSeen()).toEqual(['n=1', 'n=2', 'n=3']); // the burst; the rest wait for tokens

    scheduler.maxFrames = 100; // one token later
    scheduler.flush();
    await calls[3];
    expect(listsSeen()).toEqual(['n=1', 'n=2', 'n=3', 'n=4']);

    scheduler.maxFrames = 300;
    scheduler.flush();
    await Promise.all(calls);
    expect(listsSeen()).toEqual(['n=1', 'n=2', 'n=3', 'n=4', 'n=5', 'n=6']);
    expect(waits).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('rejects a request aborted while it waits, without sending it', async () => {
    const scheduler = new VirtualTimeScheduler();
    const client = t.newClient({ throttle: apiThrottle({ qps: 1, burst: 1, scheduler }) });
    await client.list(builtin.configMaps, { labelSelector: 'n=1' });
    const abort = new AbortController();
    const waiting = client.list(builtin.configMaps, { labelSelector: 'n=2' }, abort.signal);
    abort.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    scheduler.flush();
    expect(listsSeen()).toEqual(['n=1']);
  });

  it('throttles watches too: a watch waits for its token like any request', async () => {
    const scheduler = new VirtualTimeScheduler();
    const client = t.newClient({ throttle: apiThrottle({ qps: 1, burst: 1, scheduler }) });
    await client.list(builtin.configMaps, { labelSelector: 'n=1' });
    const hangUp = new AbortController();
    const stream = client.transport.stream({ method: 'GET', path: '/api/v1/configmaps', query: { watch: true }, signal: hangUp.signal });
    await new Promise((r) => setTimeout(r, 50));
    expect(t.watches.size).toBe(0);
    scheduler.flush();
    const res = await stream;
    expect(t.watches.size).toBe(1);
    (res.body as unknown as NodeJS.EventEmitter).on('error', () => undefined); // the hang-up below
    hangUp.abort();
  });
});
