// What a pod's volumes cost a hollow node's sync (issue #26): the API-access volume every
// admitted pod gets (a projected service-account token, the kube-root-ca.crt ConfigMap, the
// namespace through the downward API), set up at the pod's first sync, again at a second, and torn
// down — written as the daemon writes them (the atomic writer: mkdir, mkdtemp, files, symlinks,
// lstat, chmod) against made but not written (`writeFiles: false`, a hollow node's). Both in one
// process, in alternating rounds, CPU µs per pod (process.cpuUsage, the event loop's and libuv's
// threads alike). The objects come from memory: this measures the volumes, not the API.
//   node --import tsx bench/nodeagent/pod-volumes.ts [pods a round] [rounds]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '../../src/api/index.js';
import { podVolumesAccess, type PodObjectReader } from '../../src/nodeagent/index.js';

const PODS = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 6);
const now = Math.floor(Date.now() / 1000);
const claims = Buffer.from(JSON.stringify({ iat: now, exp: now + 3600, aud: ['https://svc.default.svc'] })).toString('base64url');
const token = `eyJhbGciOiJSUzI1NiJ9.${claims}.${'s'.repeat(342)}`;
const objects: PodObjectReader = {
  configMap: async (namespace, name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { 'ca.crt': `-----BEGIN CERTIFICATE-----\n${'A'.repeat(1100)}\n-----END CERTIFICATE-----\n` } }),
  secret: async () => undefined,
  serviceAccountToken: async () => ({ token, expirationTimestamp: new Date((now + 3600) * 1000).toISOString() }),
};
let serial = 0;
const pod = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p${serial}`, namespace: 'default', uid: `uid-${serial++}` },
  spec: {
    nodeName: 'bench',
    containers: [{ name: 'app', image: 'registry.example/app:1', volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/svc.io/serviceaccount', readOnly: true }] }],
    volumes: [
      {
        name: 'kube-api-access',
        projected: {
          defaultMode: 0o644,
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
    ],
  },
});

type Phases = { firstSync: number; secondSync: number; tearDown: number; total: number };
const cpuUs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / PODS;
};

async function round(writeFiles: boolean): Promise<Phases> {
  const rootDir = mkdtempSync(join(tmpdir(), 'svc-bench-volumes-'));
  const volumes = podVolumesAccess({ rootDir, nodeName: 'bench', hostIP: '10.0.0.1', objects, nodeAllocatable: { cpu: '4', memory: '16Gi' }, memoryBacked: false, rememberWrites: true, writeFiles });
  const pods = Array.from({ length: PODS }, pod);
  let since = process.cpuUsage();
  for (const p of pods) {
    const set = await volumes.setUp(p);
    set.mounts(p.spec.containers[0]!, []);
  }
  const firstSync = cpuUs(since);
  since = process.cpuUsage();
  for (const p of pods) await volumes.setUp(p);
  const secondSync = cpuUs(since);
  since = process.cpuUsage();
  for (const p of pods) await volumes.tearDown(p.metadata.uid!);
  const tearDown = cpuUs(since);
  rmSync(rootDir, { recursive: true, force: true });
  return { firstSync, secondSync, tearDown, total: firstSync + secondSync + tearDown };
}

await round(true);
await round(false);
const results: Record<'written' | 'unwritten', Phases[]> = { written: [], unwritten: [] };
for (let i = 0; i < ROUNDS; i++) {
  // Alternating order, so a drift of the machine's load falls on both.
  for (const writeFiles of i % 2 === 0 ? [true, false] : [false, true]) results[writeFiles ? 'written' : 'unwritten'].push(await round(writeFiles));
}
const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
const medians = (phases: Phases[]) => ({ firstSync: median(phases.map((p) => p.firstSync)), secondSync: median(phases.map((p) => p.secondSync)), tearDown: median(phases.map((p) => p.tearDown)), total: median(phases.map((p) => p.total)) });
console.log(JSON.stringify({ podsPerRound: PODS, rounds: ROUNDS, cpuUsPerPod: { written: medians(results.written), unwritten: medians(results.unwritten) } }));
