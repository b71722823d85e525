// Pod start through a real node agent, containerd and svc-apiserver (issue #12's benchmark):
//  1. one pod at a time: create (spec.nodeName set, so no scheduler is on the path) → Running
//     seen by a watch, busybox with the image present; p50 and p99, and the share of each start
//     spent outside runtime calls (the time no CRI call of the agent's was in flight);
//  2. a burst of BURST pods created at once, until every one is seen Running;
//  3. the agent's RSS with RSS_PODS pods running, the agent as its own `nodeagent` process (RSS
//     and CPU per 10 s window after they all run, SETTLE_WINDOWS of them, and the peak).
// The API server is a child process (HTTPS, memory store); containerd is a private one.
// Run: npm run bench:pod-start  (SINGLE=, BURST=, RSS_PODS=, SETTLE_WINDOWS=, AGENT_NODE_FLAGS= and AGENT_ENV=
// for the agent's node (default: its shebang's), AGENT_PROFILE=file.cpuprofile (AGENT_PROFILE_MS) for a CPU profile of its steady
// state through its inspector, AGENT_HEAP_SNAPSHOT=file.heapsnapshot for its heap, AGENT_SMAPS=file for its mappings; builds first: the RSS run uses dist/)
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cpuTicks, MS_PER_TICK, openSockets, residentMb } from '../support/proc.js';
import { profileProcess, snapshotProcess } from '../support/remote-inspector.js';
import { filter, firstValueFrom, Observable, share, take, toArray } from 'rxjs';
import type { Pod } from '../../src/api/index.js';
import { prepareNodeAgent } from '../../src/cli/nodeagent-command.js';
import { startNodeAgent } from '../../src/cli/nodeagent-run.js';
import { builtin, Client } from '../../src/client/index.js';
import {
  buildLocalImages,
  copyKernelTunables,
  defaultImageCacheDir,
  freePodCidr,
  importImageArchive,
  mountsUnder,
  startContainerdProcess,
  type ContainerdProcess,
  type CriCallRecord,
  procSysctls,
} from '../../src/nodeagent/index.js';

const SINGLE = Number(process.env['SINGLE'] ?? 30);
const BURST = Number(process.env['BURST'] ?? 50);
const RSS_PODS = Number(process.env['RSS_PODS'] ?? 100);
const NODE = 'bench-node';
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

const quiet = { out: () => undefined, err: (line: string) => process.stderr.write(`${line}\n`) };

function podObject(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 0,
      // No controller manager runs here to publish kube-root-ca.crt, which the token volume needs.
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: 'svc.local/busybox:latest', imagePullPolicy: 'IfNotPresent', command: ['sleep', '100000'] }],
    },
  } as Pod;
}

const running = (pod: Pod): boolean =>
  pod.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).length > 0 && pod.status.containerStatuses!.every((c) => (c.state as { running?: unknown } | undefined)?.running !== undefined);

/** Running pods as a watch sees them: name → when first seen Running (performance.now()). */
function runningSeen(client: Client): { seen: Map<string, number>; changes$: Observable<string> } {
  const seen = new Map<string, number>();
  const events$ = client.watch$(builtin.pods, { namespace: 'default' });
  const changes$ = new Observable<string>((subscriber) => {
    const subscription = events$.subscribe({
      next: (event) => {
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
        const pod = event.object as Pod;
        const name = pod.metadata.name!;
        if (!seen.has(name) && running(pod)) {
          seen.set(name, performance.now());
          subscriber.next(name);
        }
      },
      error: (error: unknown) => subscriber.error(error),
    });
    return () => subscription.unsubscribe();
  }).pipe(share());
  return { seen, changes$ };
}

/** Milliseconds of [from, to] covered by at least one of the intervals. */
function covered(intervals: readonly { start: number; end: number }[], from: number, to: number): number {
  const clipped = intervals
    .map((i) => ({ start: Math.max(i.start, from), end: Math.min(i.end, to) }))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let cursor = from;
  for (const i of clipped) {
    const start = Math.max(i.start, cursor);
    if (i.end > start) {
      total += i.end - start;
      cursor = i.end;
    }
  }
  return total;
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function deleteAll(client: Client): Promise<void> {
  await client.deleteCollection(builtin.pods, { namespace: 'default' });
  for (;;) {
    const left = await client.list(builtin.pods, { namespace: 'default' });
    if (left.items.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function agentFlags(dir: string, containerd: ContainerdProcess, svcconfig: string): Promise<string[]> {
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
      `maxPods: ${Math.max(110, RSS_PODS + 10)}`,
    ].join('\n'),
  );
  return ['--config', config, '--svcconfig', svcconfig, '--root-dir', join(dir, 'agent'), '--cert-dir', join(dir, 'agent', 'pki'), '--hostname-override', NODE];
}

async function main(): Promise<void> {
  const dir = mkdtempSync('/tmp/svc-bench-pods-');
  const server = fork(join(root, 'bench/client/server.ts'), [join(dir, 'api')], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let containerd: ContainerdProcess | undefined;
  let agentChild: ChildProcess | undefined;
  try {
    const line = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve));
    const { svcconfig } = JSON.parse(line) as { svcconfig: string };
    const client = await Client.fromSvcconfig(svcconfig);
    const images = buildLocalImages(defaultImageCacheDir());
    mkdirSync(join(dir, 'ctrd'), { recursive: true });
    containerd = await startContainerdProcess({ dir: join(dir, 'ctrd'), podCidr: freePodCidr(), bridge: `svcb${process.pid % 100000}`, sandboxImage: images.pause.ref });
    for (const image of [images.pause, images.busybox]) await importImageArchive({ address: containerd.address, archive: image.path, snapshotter: containerd.snapshotter });
    const flags = await agentFlags(dir, containerd, svcconfig);

    // 1 and 2: the agent in this process, its runtime calls recorded.
    const calls: { start: number; end: number }[] = [];
    const startup = prepareNodeAgent(flags, quiet);
    if (typeof startup === 'number') throw new Error('agent options refused');
    // The agent's kernel tunables in a copy: a benchmark leaves the host's kernel alone.
    const sysctls = procSysctls(copyKernelTunables(join(dir, 'sysctl')));
    const agent = await startNodeAgent(startup, quiet, { sysctls, onRuntimeCall: (call: CriCallRecord) => calls.push({ start: call.startedAt, end: call.startedAt + call.durationMs }) });
    const watch = runningSeen(client);
    const subscription = watch.changes$.subscribe();
    // Wait for the Node to be Ready before the first pod.
    for (;;) {
      const node = await client.get(builtin.nodes, NODE).catch(() => undefined);
      if (node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const latencies: number[] = [];
    const outside: number[] = [];
    for (let i = 0; i < SINGLE; i++) {
      const name = `single-${i}`;
      const seen = firstValueFrom(watch.changes$.pipe(filter((n) => n === name), take(1)));
      const t0 = performance.now();
      await client.create(builtin.pods, podObject(name), { namespace: 'default' });
      await seen;
      const t1 = watch.seen.get(name)!;
      latencies.push(t1 - t0);
      outside.push(1 - covered(calls, t0, t1) / (t1 - t0));
    }
    await deleteAll(client);

    const burstSeen = firstValueFrom(watch.changes$.pipe(filter((n) => n.startsWith('burst-')), take(BURST), toArray()));
    const b0 = performance.now();
    await Promise.all(Array.from({ length: BURST }, (_, i) => client.create(builtin.pods, podObject(`burst-${i}`), { namespace: 'default' })));
    await burstSeen;
    const burstMs = Math.max(...[...watch.seen.entries()].filter(([n]) => n.startsWith('burst-')).map(([, t]) => t)) - b0;
    await deleteAll(client);
    subscription.unsubscribe();
    await agent.close();

    // 3: the agent as its own process, RSS_PODS pods running.
    // The installed bin, as an operator runs it (the bundle, AGENT_BIN=dist/src/cli/nodeagent.js for
    // the unbundled modules): under tsx the loader and its transpiler would count in the RSS.
    // The bin's own V8 flags (its shebang line), unless AGENT_NODE_FLAGS says otherwise.
    // And the environment it sets there (NAME=value words before `node`), unless AGENT_ENV says otherwise.
    const bin = join(root, process.env['AGENT_BIN'] ?? 'dist/nodeagent.mjs');
    const shebang = /^#!\/usr\/bin\/env -S (.*?) ?node (.*)$/m.exec(readFileSync(bin, 'utf8').slice(0, 400));
    const nodeFlags = (process.env['AGENT_NODE_FLAGS'] ?? shebang?.[2] ?? '').split(' ').filter(Boolean);
    const agentEnv = Object.fromEntries((process.env['AGENT_ENV'] ?? shebang?.[1] ?? '').split(' ').filter(Boolean).map((word) => word.split('=', 2) as [string, string]));
    agentChild = spawn(process.execPath, [...nodeFlags, bin, ...flags, ...(process.env['AGENT_ARGS']?.split(' ').filter(Boolean) ?? [])], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...agentEnv } });
    const watch2 = runningSeen(client);
    const allRunning = firstValueFrom(watch2.changes$.pipe(filter((n) => n.startsWith('rss-')), take(RSS_PODS), toArray()));
    for (let i = 0; i < RSS_PODS; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, RSS_PODS - i) }, (_, j) => client.create(builtin.pods, podObject(`rss-${i + j}`), { namespace: 'default' })));
    }
    // The sockets the agent holds while its pods start: each connection to the API server is a TLS
    // session whose buffers are malloc'd, and freed ones leave the malloc heap fragmented.
    let socketsPeak = 0;
    const sampler = setInterval(() => {
      if (agentChild?.pid) socketsPeak = Math.max(socketsPeak, openSockets(agentChild.pid));
    }, 100);
    await allRunning.finally(() => clearInterval(sampler));
    // Let relists, status checks, log rotation and a full sync run with every pod in place: the
    // RSS and the CPU the agent spends (its price for the bin's V8 flags) per 10 s window.
    const pid = agentChild.pid!;
    const idleCpuPercent: number[] = [];
    const rssByWindowMb: number[] = [];
    const socketsByWindow: number[] = [];
    for (let w = 0; w < Number(process.env['SETTLE_WINDOWS'] ?? 3); w += 1) {
      const ticks0 = cpuTicks(pid);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      // CPU ms over 10 s of wall time, in percent of one core.
      idleCpuPercent.push(((cpuTicks(pid) - ticks0) * MS_PER_TICK) / 100);
      rssByWindowMb.push(residentMb(pid).rss);
      socketsByWindow.push(openSockets(pid));
    }
    // Read before any profile or snapshot: the inspector's own memory would count.
    const memory = residentMb(pid);
    // AGENT_SMAPS=file: the agent's mappings at that moment, for what the anonymous pages are.
    if (process.env['AGENT_SMAPS']) writeFileSync(process.env['AGENT_SMAPS'], readFileSync(`/proc/${pid}/smaps`));
    // AGENT_PROFILE=file.cpuprofile: the agent's steady state with every pod running, 10 s of it.
    if (process.env['AGENT_PROFILE']) await profileProcess(pid, Number(process.env['AGENT_PROFILE_MS'] ?? 10_000), process.env['AGENT_PROFILE']);
    // AGENT_HEAP_SNAPSHOT=file.heapsnapshot: what the agent's heap holds with every pod running.
    if (process.env['AGENT_HEAP_SNAPSHOT']) await snapshotProcess(pid, process.env['AGENT_HEAP_SNAPSHOT']);
    await deleteAll(client);

    const results = {
      single: { pods: SINGLE, p50Ms: Math.round(percentile(latencies, 50)), p99Ms: Math.round(percentile(latencies, 99)), outsideRuntimeP50: percentile(outside, 50), outsideRuntimeMean: outside.reduce((a, b) => a + b, 0) / outside.length },
      burst: { pods: BURST, ms: Math.round(burstMs) },
      rss: { pods: RSS_PODS, bin: process.env['AGENT_BIN'] ?? 'dist/nodeagent.mjs', env: agentEnv, nodeFlags: nodeFlags.join(' '), rssMb: memory.rss, anonMb: memory.anon, fileMb: memory.file, rssByWindowMb, peakMb: memory.peak, idleCpuPercent, socketsPeak, socketsByWindow },
    };
    console.log(JSON.stringify(results, null, 2));
    await client.close();
  } finally {
    agentChild?.kill('SIGTERM');
    await containerd?.stop({ removeDir: true }).catch((error: unknown) => console.error(error));
    // The agent made its root dir a shared bind mount.
    for (const point of mountsUnder(dir).sort((a, b) => b.length - a.length)) spawnSync('umount', ['-l', point]);
    server.send('stop');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
