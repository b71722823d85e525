import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandIO } from '../../src/cli/command.js';
import { main } from '../../src/cli/svc-command.js';
import { loadSvcconfig } from '../../src/client/index.js';
import { testPodCidr } from '../support/svc-up.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function capture(): CommandIO & { out: (line: string) => void; text: () => string; errText: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out: (line) => void out.push(line), err: (line) => void err.push(line), text: () => out.join('\n'), errText: () => err.join('\n') };
}

describe('svc', () => {
  it('lists its commands on --help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.text()).toMatch(/^Usage: svc <command> \[flags\]/);
    expect(io.text()).toMatch(/\n {2}up +Start a local cluster/);
    expect(io.text()).toMatch(/\n {2}crd +Print the CustomResourceDefinitions a module defines/);
  });

  it('prints usage and exits 2 without a command', async () => {
    const io = capture();
    expect(await main([], io)).toBe(2);
    expect(io.text()).toContain('Commands:');
  });

  it('exits 2 on an unknown command', async () => {
    const io = capture();
    expect(await main(['down'], io)).toBe(2);
    expect(io.errText()).toContain('svc: unknown command "down"');
  });

  it('shows svc up flags, defaulting to loopback, on `svc up --help` and `svc help up`', async () => {
    for (const argv of [['up', '--help'], ['help', 'up']]) {
      const io = capture();
      expect(await main(argv, io)).toBe(0);
      expect(io.text()).toMatch(/^Usage: svc up \[flags\]/);
      expect(io.text()).toMatch(/--bind-address ip +.*\(default "127\.0\.0\.1"\)/s);
    }
  });

  it('shows svc crd usage on `svc crd --help`', async () => {
    const io = capture();
    expect(await main(['crd', '--help'], io)).toBe(0);
    expect(io.text()).toMatch(/^Usage: svc crd MODULE\[#EXPORT\]/);
  });

  it('exits 2 naming the flag on a bad svc up flag', async () => {
    const io = capture();
    expect(await main(['up', '--secure-port=x'], io)).toBe(2);
    expect(io.errText()).toContain('svc up: invalid argument "x" for --secure-port flag');
  });
});

describe('svc up as a process', () => {
  it('starts, prints where its config is and how long it took, serves, and stops on SIGINT', async ({ onTestFailed, onTestFinished }) => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--storage=memory', '--dashboard-port=0', '--node-agent-port=0', testPodCidr()], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Every line stamped with the ms since the spawn, shown if the test fails: where its time went
    // (start to listening, to ready, the stop) is the first question a timeout asks.
    const spawnedAt = performance.now();
    const timeline: string[] = [];
    const stamp = (stream: string, line: string) => timeline.push(`${String(Math.round(performance.now() - spawnedAt)).padStart(6)} ${stream} ${line}`);
    onTestFailed(() => console.error(`svc up, ms since spawn:\n${timeline.join('\n')}`));
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    createInterface({ input: child.stderr }).on('line', (line) => stamp('err', line));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Also after a failed assertion or the test's timeout: SIGTERM, so svc up takes its containerd
    // down with it (a SIGKILL would leave containerd and its shims running).
    onTestFinished(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    });
    const lines: string[] = [];
    const ready = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        stamp('out', line);
        lines.push(line);
        if (line.startsWith('  kubectl')) resolve();
      });
      void exited.then(() => resolve());
    });
    await ready;
    const text = lines.join('\n');
    expect(text, stderr.join('')).toMatch(/^svc-apiserver listening on https:\/\/127\.0\.0\.1:\d+$/m);
    expect(text).toMatch(/^ready in \d+ ms$/m);
    const svcconfig = join(dir, 'admin.svcconfig');
    expect(text).toContain(`svcconfig: ${svcconfig}`);
    expect(text).toContain(`export KUBECONFIG=${svcconfig}`);
    expect(text).toContain(`kubectl --kubeconfig ${svcconfig} get ns`);
    // The dashboard on its own port, reading as the admin through its proxy.
    const dashboard = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(text)?.[1];
    expect(dashboard).toBeDefined();
    const namespaces = await request(`${dashboard!}api/v1/namespaces`);
    expect(namespaces.statusCode).toBe(200);
    expect(JSON.stringify(await namespaces.body.json())).toContain('"name":"default"');

    const target = await loadSvcconfig(svcconfig);
    const agent = new Agent({ connect: { ca: target.caData } });
    try {
      const res = await request(`${target.server}/readyz`, { dispatcher: agent });
      expect(await res.body.text()).toBe('ok');

      // The manager's start went out in one burst (svc up gives it room for one): no request of
      // its waited a second for a token of its rate limiter. At kube's burst of 30 a hundred-odd
      // waited up to 5 s, readiness with them, and a stop in those seconds drained behind them.
      const manager = /^controller manager: (https:\/\/127\.0\.0\.1:\d+)/m.exec(text)?.[1];
      expect(manager).toBeDefined();
      const metrics = await request(`${manager!}/metrics`, { dispatcher: agent, headers: { authorization: `Bearer ${target.token!}` } });
      expect(metrics.statusCode).toBe(200);
      const metricLines = (await metrics.body.text()).split('\n');
      // Summed over the buckets (one per loop, the informers', discovery's, the Lease's, the manager's own).
      const sum = (series: RegExp) => metricLines.filter((l) => series.test(l)).reduce((total, l) => total + Number(l.split(' ')[1]), 0);
      const count = sum(/^rest_client_rate_limiter_duration_seconds_count\{/);
      expect(count).toBeGreaterThan(30);
      expect(sum(/^rest_client_rate_limiter_duration_seconds_bucket\{(?:[^}]*,)?le="1"[,}]/)).toBe(count);
    } finally {
      await agent.close();
    }

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr.join('')).toContain('SIGINT received, shutting down');
  });
});
