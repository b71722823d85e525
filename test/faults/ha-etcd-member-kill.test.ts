// A member of the 3-member etcd cluster under two API servers killed with SIGKILL while 32
// writers write through one server — first a follower, then the leader — and started again: the
// cluster keeps its quorum, so the API goes on (a write in flight at the election may fail with
// a 5xx Status and stays uncertain, never a false 2xx), every acknowledged write is there, and
// watches on the other server — the ones that went on, and resumed ones — miss no change and
// repeat none (the store-level fault test of test/storage/etcd-faults.test.ts, through the API).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLeader, type EtcdMember } from '../support/etcd.js';
import { seededRandom } from '../support/prng.js';
import { call, killAllApiServers } from './apiserver-process.js';
import { checkResumedWatches, checkSurvivors, Ledger, NS, openTrackedWatches, writeRound } from './crash-campaign.js';
import { startHaControlPlane, type HaControlPlane } from './ha-control-plane.js';

const WATCHES = 3;

describe('an etcd member killed under two API servers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ha-etcd-kill-'));
  let plane: HaControlPlane | undefined;
  afterAll(async () => {
    killAllApiServers();
    await plane?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write and every watch whole through the loss of a follower, then of the leader', async () => {
    const seed = 0xa7c1;
    const random = seededRandom(seed);
    plane = await startHaControlPlane(dir, 2);
    const etcd = plane.etcd;
    const [writer, watched] = plane.servers as [HaControlPlane['servers'][number], HaControlPlane['servers'][number]];
    expect((await call(writer, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);

    const ledger = new Ledger();
    let replayed = 0;
    for (const [round, which] of (['follower', 'leader'] as const).entries()) {
      const leader = await findLeader(etcd);
      const victim: EtcdMember = which === 'leader' ? leader : etcd.members.find((m) => m !== leader)!;
      const watches = await openTrackedWatches(watched, WATCHES);
      await writeRound(writer, ledger, { round, random, crashAt: 100 + Math.floor(random() * 200), crash: async () => victim.kill(), allowServerErrors: true });
      expect(ledger.unexpected).toEqual([]);
      expect(victim.alive).toBe(false);
      // Two of three members hold the quorum: both servers serve with the member still down.
      await checkSurvivors(watched, ledger, `${which} down, seed ${seed}`);
      const resumed = await checkResumedWatches(watched, ledger, watches, `sentinel-${round}`);
      replayed += resumed.replayed;
      expect(resumed.gone).toBe(0);
      await victim.restart();
      const after = await findLeader(etcd);
      if (which === 'leader') expect(after).not.toBe(victim);
    }
    expect(replayed).toBe(2 * WATCHES);
    expect(ledger.totalAcks).toBeGreaterThan(200);
  }, 300_000);
});
