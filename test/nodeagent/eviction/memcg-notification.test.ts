// --kernel-memcg-notification on this host's kernel. On cgroup v1: thresholds registered on a
// memory cgroup of the test's own (cgroup.event_control with an eventfd), crossed by a real process
// that allocates memory in it; the crossing brings an eviction pass of a real node agent forward
// (its housekeeping interval an hour, so only the notification explains the pass). On a cgroup v2
// host the same tests check the other half of the rule: the agent says notifications are not
// available there (the kubelet registers none either) and polls.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startNodeAgent, type RunningNodeAgent } from '../../../src/cli/nodeagent-run.js';
import { memcgNotificationSupport, MemoryThresholdNotifiers, type EvictionPassResult, type EvictionThreshold } from '../../../src/nodeagent/index.js';
import { eventually } from '../../controllers/support.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { agentDirs, freePort, uniqueNodeName, unmountUnder, writeAgentConfig } from '../daemon/support.js';

const MI = 1024 ** 2;
const cgroupV1 = memcgNotificationSupport().available;
const V2_REASON = 'cgroup v2 has no memory threshold notification (the kubelet registers none there either)';
const memTotal = () => Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
const cgroups: string[] = [];

/** A memory cgroup of the test's own (v1), removed after the suite. */
function testCgroup(): string {
  const dir = join('/sys/fs/cgroup/memory', `svc-memcg-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir);
  cgroups.push(dir);
  return dir;
}

/** Runs a process in `cgroup` that holds `bytes` of memory for a moment, then exits. */
function allocateIn(cgroup: string, bytes: number): Promise<void> {
  const child = spawn('sh', ['-c', `echo $$ > ${cgroup}/cgroup.procs && exec perl -e '$x = "a" x ${bytes}; sleep 1'`], { stdio: 'ignore' });
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the allocating process exited ${code}`)))));
}

const hard = (quantity: number): EvictionThreshold => ({ signal: 'memory.available', value: { quantity }, gracePeriodMs: 0, hard: true, minReclaim: undefined });

afterAll(() => cgroups.forEach((dir) => existsSync(dir) && rmdirSync(dir)));

describe('memory threshold notifications', () => {
  it("fire when a process's memory crosses the threshold, at capacity - threshold + inactive_file (cgroup v1); on v2 none can be had", async () => {
    if (!cgroupV1) {
      expect(memcgNotificationSupport()).toEqual({ available: false, reason: V2_REASON });
      return;
    }
    const dir = testCgroup();
    const crossed: EvictionThreshold[] = [];
    const errors: Error[] = [];
    let ready = false;
    const threshold = hard(36 * MI);
    const notifiers = new MemoryThresholdNotifiers({ thresholds: [threshold], dir, onCrossed: (t) => crossed.push(t), onError: (e) => errors.push(e), onReady: () => (ready = true) });
    try {
      // capacity 100 MiB, threshold 36 MiB: the usage threshold is 64 MiB (the empty cgroup has no inactive file pages).
      notifiers.update({ signals: new Map([['memory.available', { available: 100 * MI, capacity: 100 * MI }]]), usage: new Map() });
      await eventually(() => ready, 'the registration', 10_000);
      await allocateIn(dir, MI);
      expect(crossed).toEqual([]);
      await allocateIn(dir, 128 * MI);
      await eventually(() => crossed.length > 0, 'a notification', 10_000);
      expect(crossed[0]).toBe(threshold);
      expect(errors).toEqual([]);
    } finally {
      notifiers.stop();
    }
  });

  it('move a registration only when its threshold moved by more than 1% of capacity, and register nothing once stopped', () => {
    // The factory records registrations; the cgroup read is a directory with a memory.stat of the test's.
    const dir = mkdtempSync('/tmp/svc-memstat-');
    try {
      const registered: number[] = [];
      const stopped: number[] = [];
      const notifiers = new MemoryThresholdNotifiers({
        thresholds: [hard(100 * MI)],
        dir,
        factory: (_dir, usageBytes) => {
          registered.push(usageBytes);
          return { stop: () => stopped.push(usageBytes) };
        },
        onCrossed: () => undefined,
        onError: (error) => {
          throw error;
        },
      });
      const observe = (inactive: number) => {
        writeFileSync(join(dir, 'memory.stat'), `inactive_file 1\ntotal_inactive_file ${inactive}\n`);
        notifiers.update({ signals: new Map([['memory.available', { available: 500 * MI, capacity: 1000 * MI }]]), usage: new Map() });
      };
      observe(0);
      observe(5 * MI); // 0.5% of capacity: kept
      observe(20 * MI); // 2%: moved
      expect(registered).toEqual([900 * MI, 920 * MI]);
      expect(stopped).toEqual([900 * MI]);
      notifiers.stop();
      observe(200 * MI);
      expect(registered).toHaveLength(2);
      expect(stopped).toEqual([900 * MI, 920 * MI]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says why on a cgroup v2 hierarchy', () => {
    const v2 = mkdtempSync('/tmp/svc-cgroup2-');
    try {
      writeFileSync(join(v2, 'cgroup.controllers'), 'cpu memory\n');
      expect(memcgNotificationSupport(v2)).toEqual({ available: false, reason: V2_REASON });
    } finally {
      rmSync(v2, { recursive: true, force: true });
    }
  });

  it('gives no not-built notice for the option', () => {
    const lines: string[] = [];
    prepareNodeAgent(['--fail-swap-on=false', '--fail-cgroupv1=false', '--kernel-memcg-notification'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, { swapDevices: 0, cgroupVersion: 1 });
    expect(lines.filter((l) => l.includes('not built') || l.includes('are polled'))).toEqual([]);
  });
});

describe('the node agent with --kernel-memcg-notification', () => {
  const dir = mkdtempSync('/tmp/svc-memcg-');
  let containerd: RunningContainerd;
  let agent: RunningNodeAgent | undefined;
  let cgroup: string | undefined;
  const passes: EvictionPassResult[] = [];
  const log: string[] = [];

  beforeAll(async () => {
    containerd = await startContainerd();
    const dirs = agentDirs(join(dir, 'node'));
    // The node's capacity less 64 MiB: on the test's cgroup (no inactive file pages) the usage threshold is 64 MiB.
    const threshold = `${Math.floor((memTotal() - 64 * MI) / 1024)}Ki`;
    writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: await freePort(), extra: { evictionHard: { 'memory.available': threshold }, kernelMemcgNotification: true } });
    const io = { out: (line: string) => log.push(line), err: (line: string) => log.push(line) };
    const startup = prepareNodeAgent(['--config', dirs.config, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', uniqueNodeName('memcg'), '-v', '4'], io);
    if (typeof startup === 'number') throw new Error(`the agent's options were refused:\n${log.join('\n')}`);
    cgroup = cgroupV1 ? testCgroup() : undefined;
    agent = await startNodeAgent(startup, io, { evictionMonitoringIntervalMs: 3_600_000, ...(cgroup ? { memcgNotificationDir: cgroup } : {}), onEvictionPass: (result) => passes.push(result) });
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await containerd?.stop();
    unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs an eviction pass when memory crosses the threshold, not only at its housekeeping interval (v1); polls with a warning on v2', async () => {
    if (!cgroup) {
      await eventually(() => passes.length === 1, 'the first pass', 30_000);
      expect(log).toContain(`nodeagent: --kernel-memcg-notification: ${V2_REASON}; memory thresholds are polled`);
      return;
    }
    // The first pass runs at start and registers the threshold.
    await eventually(
      () => passes.length === 1 && log.some((line) => /memcg-notifier\] memory threshold notification at usage \d+ of .*: registered$/.test(line)),
      `the first pass and the registration:\n${log.join('\n')}`,
      30_000,
    );
    await allocateIn(cgroup, 128 * MI);
    await eventually(() => passes.length >= 2, `a pass the notification brought:\n${log.slice(-10).join('\n')}`, 15_000);
    expect(log.some((line) => line.includes('eviction-manager] eviction pass (memcg notification)') || line.includes('eviction-manager] eviction pass: '))).toBe(true);
    expect(log.filter((line) => line.includes('nodeagent: --kernel-memcg-notification'))).toEqual([]);
  }, 60_000);
});
