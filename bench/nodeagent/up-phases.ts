/**
 * Where `svc up`'s time goes: the test's `svc up` (memory store, port 0 everywhere, a random pod
 * /24) started as a child, every line it writes stamped, then the phases timed: start → the
 * "ready" line, → the node Ready, → a pod Running, and SIGINT → exit.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { loadavg } from 'node:os';
import { freePodCidr } from '../../src/nodeagent/index.js';

const run = promisify(execFile);
/** The checkout whose `svc up` runs (default this one; another for a same-run A/B). */
const REPO = process.env.SVC_REPO ?? join(import.meta.dirname, '..', '..');
const RUNS = Number(process.env.RUNS ?? 1);
const EXTRA = (process.env.UP_ARGS ?? '').split(' ').filter(Boolean);
const VERBOSE = process.env.LINES === '1';
/** A directory for the child's CPU profile (`--cpu-prof`), written when it exits. */
const PROFILE_DIR = process.env.PROFILE_DIR;

/** CPU time (user + system, ms) the process has used so far: a figure the machine's load does not stretch. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function once(): Promise<Record<string, number>> {
  const dir = mkdtempSync('/tmp/svc-phases-');
  const config = join(dir, 'admin.svcconfig');
  const t0 = performance.now();
  const at = () => Math.round(performance.now() - t0);
  const child = spawn(process.execPath, [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), '--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--storage=memory', '--dashboard-port=0', '--node-agent-port=0', `--pod-cidr=${freePodCidr()}`, ...EXTRA], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const phases: Record<string, number> = {};
  let managerUrl: string | undefined;
  let ready!: () => void;
  const readyLine = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (VERBOSE) console.log(`${String(at()).padStart(6)} out ${line}`);
    if (line.startsWith('svc-apiserver listening')) phases.listening = at();
    if (line.startsWith('ready in')) {
      phases.readyLine = at();
      phases.cpuAtReady = cpuMs(child.pid!);
    }
    managerUrl ??= /^controller manager: (https:\/\/\S+)/.exec(line)?.[1];
    if (line.startsWith('  kubectl')) ready();
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (VERBOSE) console.log(`${String(at()).padStart(6)} err ${line}`);
  });
  await readyLine;
  const k = async (...args: string[]) => (await run('kubectl', ['--kubeconfig', config, ...args])).stdout;
  for (;;) {
    const status = await k('get', 'nodes', '-o', 'jsonpath={.items[0].status.conditions[?(@.type=="Ready")].status}').catch(() => '');
    if (status === 'True') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  phases.nodeReady = at();
  await k('run', 'p', '--image=svc.local/busybox:latest', '--image-pull-policy=IfNotPresent', '--restart=Never', '--command', '--', 'sleep', '3600');
  phases.podCreated = at();
  for (;;) {
    const phase = await k('get', 'pod', 'p', '-o', 'jsonpath={.status.phase}').catch(() => '');
    if (phase === 'Running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  phases.podRunning = at();
  phases.cpuAtPodRunning = cpuMs(child.pid!);
  // The manager's clients: how many requests waited for a token of their buckets (one per loop and a few more), and how long in all.
  if (managerUrl) {
    const metrics = await k('--server', managerUrl, 'get', '--raw', '/metrics');
    const sample = (name: string) => [...metrics.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((total, m) => total + Number(m[1]), 0);
    phases.managerRequests = sample('rest_client_rate_limiter_duration_seconds_count');
    phases.managerThrottledMs = Math.round(sample('rest_client_rate_limiter_duration_seconds_sum') * 1000);
  }
  const stopAt = performance.now();
  child.kill('SIGINT');
  const code = await exited;
  phases.stop = Math.round(performance.now() - stopAt);
  phases.exitCode = code ?? -1;
  rmSync(dir, { recursive: true, force: true });
  return phases;
}

for (let i = 0; i < RUNS; i++) {
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  const phases = await once();
  console.log(JSON.stringify({ load, ...phases }));
}
