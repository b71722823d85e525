// etcd killed with SIGKILL under svc-apiserver (which stays up) while 32 writers write, then
// started again on its data: while it is down the server answers 5xx Statuses (never a false
// 2xx, never a crash), afterwards it serves again by itself, every acknowledged write is there,
// and watches — the ones the outage did not end, and resumed ones — miss no change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../controllers/support.js';
import { startEtcd, type EtcdMember } from '../support/etcd.js';
import { seededRandom } from '../support/prng.js';
import { call, killAllApiServers, startApiServerProcess, type ApiServerProcess } from './apiserver-process.js';
import { checkResumedWatches, checkSurvivors, CONFIGMAPS, Ledger, NS, openTrackedWatches, writeRound } from './crash-campaign.js';

const KILLS = 2;
const WATCHES = 3;

describe('etcd killed under svc-apiserver mid-flight', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-crash-etcd-kill-'));
  let etcd: EtcdMember | undefined;
  let server: ApiServerProcess | undefined;
  afterAll(async () => {
    killAllApiServers();
    await server?.kill();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged write across ${KILLS} etcd SIGKILLs, and the API server recovers by itself`, async () => {
    const seed = 0xe7cd;
    const random = seededRandom(seed);
    etcd = await startEtcd();
    const member = etcd;
    server = await startApiServerProcess(join(dir, 'data'), ['--storage=etcd', `--etcd-servers=${member.endpoint}`]);
    const api = server;
    expect((await call(api, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);

    const ledger = new Ledger();
    let replayed = 0;
    for (let round = 0; round < KILLS; round++) {
      const watches = await openTrackedWatches(api, WATCHES);
      const crash = async () => member.kill();
      await writeRound(api, ledger, { round, random, crashAt: 150 + Math.floor(random() * 250), crash, allowServerErrors: true });
      expect(ledger.unexpected).toEqual([]);
      // Down: a read is a 5xx Status, not a hang and not a crash.
      const down = await call(api, 'GET', `${CONFIGMAPS}?resourceVersion=&limit=1`);
      expect(down.status, JSON.stringify(down.body)).toBeGreaterThanOrEqual(500);
      expect(down.body).toMatchObject({ kind: 'Status', status: 'Failure' });

      await member.restart();
      await eventually(async () => (await call(api, 'GET', `${CONFIGMAPS}?limit=1`)).status === 200, 'the API server to serve again', 60_000);
      await checkSurvivors(api, ledger, `round ${round}, seed ${seed}`);
      const resumed = await checkResumedWatches(api, ledger, watches, `sentinel-${round}`);
      replayed += resumed.replayed;
    }
    expect(ledger.totalAcks).toBeGreaterThan(KILLS * 100);
    expect(replayed).toBeGreaterThan(0);
    // Writes held up to the etcd request timeout while it is down, two outages: minutes.
  }, 300_000);
});
