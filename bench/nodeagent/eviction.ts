// Node-pressure eviction reaction time (issue #32's measure): a real node agent (in this process),
// a private containerd and svc-apiserver. The agent's hard threshold is nodefs.available = what
// its root dir's filesystem has free minus 1 GiB; each sample runs one pod, then crosses the
// threshold for real (fallocate of a 2 GiB file on that filesystem) and times the crossing →
// the pod's status Failed/Evicted as a watch sees it; the file is removed before the next sample.
// The goal is ≤ 2 × the housekeeping interval (a pass comes at most one interval after the
// crossing; the kill, with a hard threshold's 1 s grace, and the status write follow).
// Run: npm run bench:eviction  (SAMPLES=5, INTERVAL_MS=10000: the kubelet's eviction monitoring period)
import { fork, spawnSync } from 'node:child_process';
import { statfsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom, map, share, take, type Observable } from 'rxjs';
import type { Pod } from '../../src/api/index.js';
import { prepareNodeAgent } from '../../src/cli/nodeagent-command.js';
import { startNodeAgent } from '../../src/cli/nodeagent-run.js';
import { builtin, Client } from '../../src/client/index.js';
import { buildLocalImages, copyKernelTunables, defaultImageCacheDir, freePodCidr, importImageArchive, mountsUnder, procSysctls, startContainerdProcess, type ContainerdProcess } from '../../src/nodeagent/index.js';

const SAMPLES = Number(process.env['SAMPLES'] ?? 5);
const INTERVAL_MS = Number(process.env['INTERVAL_MS'] ?? 10_000);
const NODE = 'bench-evict';
const GI = 1024 ** 3;
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const quiet = { out: () => undefined, err: (line: string) => process.stderr.write(`${line}\n`) };

const podObject = (name: string): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 30,
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: 'svc.local/busybox:latest', imagePullPolicy: 'IfNotPresent', command: ['sleep', '100000'] }],
    },
  }) as Pod;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const available = (path: string): number => {
  const fs = statfsSync(path);
  return fs.bavail * fs.bsize;
};

/** Pod phases as a watch sees them: name and a tag, when first seen Running and when Evicted. */
function podMoments(client: Client): Observable<{ name: string; what: 'running' | 'evicted'; at: number }> {
  return client.watch$(builtin.pods, { namespace: 'default' }).pipe(
    map((event) => {
      if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return { name: '', what: undefined, at: 0 };
      const pod = event.object as Pod;
      const what = pod.status?.reason === 'Evicted' ? ('evicted' as const) : pod.status?.phase === 'Running' ? ('running' as const) : undefined;
      return { name: pod.metadata.name ?? '', what, at: performance.now() };
    }),
    filter((m): m is { name: string; what: 'running' | 'evicted'; at: number } => m.what !== undefined),
    share(),
  );
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function main(): Promise<void> {
  const dir = mkdtempSync('/tmp/svc-bench-evict-');
  const server = fork(join(root, 'bench/client/server.ts'), [join(dir, 'api')], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let containerd: ContainerdProcess | undefined;
  const filler = join(dir, 'agent', 'filler');
  try {
    const line = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve));
    const { svcconfig } = JSON.parse(line) as { svcconfig: string };
    const client = await Client.fromSvcconfig(svcconfig);
    const images = buildLocalImages(defaultImageCacheDir());
    mkdirSync(join(dir, 'ctrd'), { recursive: true });
    mkdirSync(join(dir, 'agent'), { recursive: true });
    containerd = await startContainerdProcess({ dir: join(dir, 'ctrd'), podCidr: freePodCidr(), bridge: `svce${process.pid % 100000}`, sandboxImage: images.pause.ref });
    for (const image of [images.pause, images.busybox]) await importImageArchive({ address: containerd.address, archive: image.path, snapshotter: containerd.snapshotter });
    const thresholdBytes = available(join(dir, 'agent')) - GI;
    const config = join(dir, 'agent.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: nodeagent.config.svc.io/v1',
        'kind: NodeAgentConfiguration',
        `containerRuntimeEndpoint: ${containerd.endpoint}`,
        'failCgroupV1: false',
        'failSwapOn: false',
        'readOnlyPort: 0',
        'healthzPort: 0',
        `port: ${await freePort()}`,
        'evictionHard:',
        `  nodefs.available: "${Math.floor(thresholdBytes / 1024 ** 2)}Mi"`,
        'evictionPressureTransitionPeriod: 0s',
      ].join('\n'),
    );
    const startup = prepareNodeAgent(['--config', config, '--svcconfig', svcconfig, '--root-dir', join(dir, 'agent'), '--cert-dir', join(dir, 'agent', 'pki'), '--hostname-override', NODE], quiet);
    if (typeof startup === 'number') throw new Error('agent options refused');
    // The agent's kernel tunables in a copy: a benchmark leaves the host's kernel alone.
    const agent = await startNodeAgent(startup, quiet, { evictionMonitoringIntervalMs: INTERVAL_MS, sysctls: procSysctls(copyKernelTunables(join(dir, 'sysctl'))) });
    const moments$ = podMoments(client);
    const keep = moments$.subscribe();

    const reactions: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const name = `victim-${i}`;
      const running = firstValueFrom(moments$.pipe(filter((m) => m.name === name && m.what === 'running'), take(1)));
      const evicted = firstValueFrom(moments$.pipe(filter((m) => m.name === name && m.what === 'evicted'), take(1)));
      await client.create(builtin.pods, podObject(name), { namespace: 'default' });
      await running;
      // A random point of the housekeeping cycle, as a real crossing would fall.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * INTERVAL_MS));
      const t0 = performance.now();
      const fill = spawnSync('fallocate', ['-l', String(2 * GI), filler]);
      if (fill.status !== 0) throw new Error(`fallocate: ${fill.stderr.toString()}`);
      const seen = await evicted;
      reactions.push(seen.at - t0);
      rmSync(filler, { force: true });
      process.stderr.write(`sample ${i}: ${Math.round(seen.at - t0)} ms\n`);
    }
    keep.unsubscribe();
    await agent.close();
    await client.close();
    const result = {
      samples: SAMPLES,
      housekeepingIntervalMs: INTERVAL_MS,
      reactionMs: { p50: Math.round(percentile(reactions, 50)), max: Math.round(Math.max(...reactions)), min: Math.round(Math.min(...reactions)) },
      goalMs: 2 * INTERVAL_MS,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    rmSync(filler, { force: true });
    await containerd?.stop({ removeDir: true }).catch((error: unknown) => console.error(error));
    for (const point of mountsUnder(dir).sort((a, b) => b.length - a.length)) spawnSync('umount', ['-l', point]);
    server.send('stop');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
