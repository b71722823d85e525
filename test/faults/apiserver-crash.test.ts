// The crash test: svc-apiserver (the real process, HTTPS, the generated admin token) under 32
// concurrent writers of ConfigMaps is killed with SIGKILL mid-flight, several times, and started
// again over the same data (the sqlite file, or the same etcd). Every write the server answered
// 2xx must survive with its resourceVersion (or a later one, when a later write was in flight);
// every acknowledged delete stays deleted; watches opened before a crash and resumed from the
// last resourceVersion they saw replay every change in order with no gap (or answer 410 Gone).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEtcd } from '../support/etcd.js';
import { seededRandom } from '../support/prng.js';
import { call, killAllApiServers, startApiServerProcess } from './apiserver-process.js';
import { checkResumedWatches, checkSurvivors, Ledger, NS, openTrackedWatches, writeRound } from './crash-campaign.js';

const KILLS = 3;
const WATCHES = 3;

function runCrashCampaign(name: string, boot: () => Promise<{ args: string[]; dispose(): Promise<void> }>): void {
  describe(`svc-apiserver killed mid-flight (${name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), `svc-crash-${name}-`));
    const disposers: (() => Promise<void>)[] = [];
    afterAll(async () => {
      killAllApiServers();
      for (const dispose of disposers.reverse()) await dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    it(`keeps every acknowledged write and resumes watches across ${KILLS} SIGKILLs`, async () => {
      const seed = 0x5eed + name.length;
      const random = seededRandom(seed);
      const backend = await boot();
      disposers.push(backend.dispose);
      const dataDir = join(dir, 'data');
      let server = await startApiServerProcess(dataDir, backend.args);
      disposers.push(() => server.kill());
      expect((await call(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);

      const ledger = new Ledger();
      let replayed = 0;
      let gone = 0;
      for (let round = 0; round < KILLS; round++) {
        const watches = await openTrackedWatches(server, WATCHES);
        const victim = server;
        await writeRound(victim, ledger, { round, random, crashAt: 150 + Math.floor(random() * 250), crash: () => victim.kill() });
        expect(ledger.unexpected).toEqual([]);

        server = await startApiServerProcess(dataDir, backend.args);
        await checkSurvivors(server, ledger, `round ${round}, seed ${seed}`);
        const resumed = await checkResumedWatches(server, ledger, watches, `sentinel-${round}`);
        replayed += resumed.replayed;
        gone += resumed.gone;
      }

      // The campaign did what it claims: many writes, some cut by the kills, watches resumed.
      expect(ledger.totalAcks).toBeGreaterThan(KILLS * 100);
      expect(ledger.uncertainWrites, 'writes in flight at the kills').toBeGreaterThan(0);
      expect(replayed + gone).toBe(KILLS * WATCHES);
      expect(replayed).toBeGreaterThan(0);
      await server.stop();
      // Three restarts of the real process and some thousand requests: minutes on a loaded machine.
    }, 300_000);
  });
}

runCrashCampaign('sqlite', async () => ({ args: ['--storage=sqlite'], dispose: async () => {} }));

runCrashCampaign('etcd', async () => {
  const etcd = await startEtcd();
  return { args: ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`], dispose: () => etcd.stop() };
});
