// `svc up` stopped while it starts, and started again on the same data dir: a SIGTERM at any
// point of the start-up takes down what had started (no containerd, shim, mount or bridge left),
// and a restarted cluster does not show its node Ready until the new agent reports.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom, map, scan, takeWhile, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { NODE_STATUS_UNKNOWN_REASON, nodeName, thisHost } from '../../src/nodeagent/index.js';
import { eventually } from '../controllers/support.js';
import { containerdPids, nodeLeftovers, NOTHING_LEFT, spawnUp, type UpProcess } from '../support/svc-up.js';

const dirs: string[] = [];
const running: UpProcess[] = [];
// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dataDir = () => {
  const dir = mkdtempSync('/tmp/svc-life-');
  dirs.push(dir);
  return dir;
};
const up = (dir: string) => {
  const p = spawnUp(dir);
  running.push(p);
  return p;
};

afterAll(async () => {
  for (const p of running) {
    // SIGTERM, not SIGKILL: svc up takes its node down with it (its own grace ends it within 30 s).
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Polls (20 ms) until `ready` holds or svc up exits; returns whether it held. */
async function until(p: UpProcess, ready: () => boolean): Promise<boolean> {
  for (;;) {
    if (ready()) return true;
    if (p.child.exitCode !== null) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const readyOf = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');

describe('svc up stopped during start-up', () => {
  it('SIGTERM once its containerd runs, before the node is up: exits 0, leaving no containerd, shim, mount or bridge', async () => {
    const dir = dataDir();
    const p = up(dir);
    expect(await until(p, () => containerdPids(dir).length > 0)).toBe(true);
    p.child.kill('SIGTERM');
    const sentBeforeReady = !p.lines.some((l) => l.startsWith('ready in'));
    expect(await p.exited, p.stderr.join('').slice(-3000)).toBe(0);
    expect(sentBeforeReady).toBe(true);
    expect(p.lines.some((l) => l.startsWith('ready in'))).toBe(false);
    expect(p.stderr.join('')).toContain('SIGTERM received, shutting down');
    expect(nodeLeftovers(dir)).toEqual(NOTHING_LEFT);
  }, 120_000);

  it('SIGTERM once the agent is being configured (images imported): the same, its root dir\'s mount included', async () => {
    const dir = dataDir();
    const p = up(dir);
    expect(await until(p, () => existsSync(join(dir, 'agent', 'config.yaml')))).toBe(true);
    p.child.kill('SIGTERM');
    const sentBeforeReady = !p.lines.some((l) => l.startsWith('ready in'));
    expect(await p.exited, p.stderr.join('').slice(-3000)).toBe(0);
    expect(sentBeforeReady).toBe(true);
    expect(nodeLeftovers(dir)).toEqual(NOTHING_LEFT);
  }, 120_000);

  it('SIGTERM as soon as the API server listens: exits 0 without starting a node', async () => {
    const dir = dataDir();
    const p = up(dir);
    await p.line((l) => l.startsWith('svc-apiserver listening on'));
    p.child.kill('SIGTERM');
    expect(await p.exited, p.stderr.join('').slice(-3000)).toBe(0);
    expect(nodeLeftovers(dir)).toEqual(NOTHING_LEFT);
  }, 120_000);
});

describe('svc up restarted on the same data dir', () => {
  it('shows the node Unknown (NodeStatusUnknown), not the last run\'s Ready, until the new agent reports Ready', async () => {
    const dir = dataDir();
    const name = nodeName({}, thisHost);
    const first = up(dir);
    await first.line((l) => l.startsWith('ready in'));
    let client = await Client.fromSvcconfig(join(dir, 'admin.svcconfig'));
    await eventually(async () => {
      const node = await client.get(builtin.nodes, name).catch(() => undefined);
      return node !== undefined && readyOf(node)?.status === 'True';
    }, 'the node to be Ready', 60_000);
    const before = await client.get(builtin.nodes, name);
    await client.close();
    first.child.kill('SIGTERM');
    expect(await first.exited, first.stderr.join('').slice(-3000)).toBe(0);
    // Heartbeats of the first run are at or before this second; the new agent's come later.
    const stoppedAt = Math.floor(Date.now() / 1000) * 1000;

    const second = up(dir);
    await second.line((l) => l.startsWith('svc-apiserver listening on'));
    client = await Client.fromSvcconfig(join(dir, 'admin.svcconfig'));
    try {
      // Every change of the Node since the first run's last look, replayed from the store, until
      // the new agent's first Ready=True.
      const fromNewAgent = (node: Node) => Date.parse(readyOf(node)?.lastHeartbeatTime ?? '') > stoppedAt;
      const changes = await firstValueFrom(
        client.watch$(builtin.nodes, { resourceVersion: before.metadata.resourceVersion, fieldSelector: `metadata.name=${name}` }).pipe(
          filter((e): e is { type: 'MODIFIED'; object: Node } => e.type === 'MODIFIED'),
          map((e) => e.object),
          scan((acc: { node: Node; done: boolean }[], node) => [...acc, { node, done: readyOf(node)?.status === 'True' && fromNewAgent(node) }], []),
          takeWhile((acc) => !acc.at(-1)!.done, true),
          toArray(),
          map((all) => all.at(-1)!.map((x) => x.node)),
        ),
      );
      const unknownAt = changes.findIndex((n) => readyOf(n)?.status === 'Unknown');
      expect(unknownAt, JSON.stringify(changes.map(readyOf))).toBeGreaterThanOrEqual(0);
      const unknown = readyOf(changes[unknownAt]!)!;
      expect(unknown).toMatchObject({ status: 'Unknown', reason: NODE_STATUS_UNKNOWN_REASON, message: 'Node agent stopped posting node status.' });
      // Every pressure condition too, as the node lifecycle controller marks them.
      expect(changes[unknownAt]!.status?.conditions?.map((c) => c.status)).toEqual(['Unknown', 'Unknown', 'Unknown', 'Unknown']);
      // The heartbeat is the last run's: it says when that agent last spoke.
      expect(Date.parse(unknown.lastHeartbeatTime ?? '')).toBeLessThanOrEqual(stoppedAt);
      // Before the mark only the first run's writes; after it, nothing Ready until the new agent's report.
      expect(changes.slice(0, unknownAt).every((n) => !fromNewAgent(n))).toBe(true);
      expect(changes.slice(unknownAt + 1, -1).every((n) => readyOf(n)?.status !== 'True')).toBe(true);
      expect(readyOf(changes.at(-1)!)?.status).toBe('True');
    } finally {
      await client.close();
    }
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stderr.join('').slice(-3000)).toBe(0);
    expect(nodeLeftovers(dir)).toEqual(NOTHING_LEFT);
  }, 180_000);
});

describe('svc up with a broken registries.yaml', () => {
  it('exits 1 naming the file and the field before it starts anything', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'registries.yaml'), 'mirrors:\n  docker.io:\n    endpoint: ["ftp://mirror.example.com"]\n');
    const p = up(dir);
    expect(await p.exited).toBe(1);
    expect(p.stderr.join('')).toContain(`svc up: registry configuration ${join(dir, 'registries.yaml')}: mirrors.docker.io.endpoint: "ftp://mirror.example.com" must be http:// or https://`);
    expect(p.lines.some((l) => l.startsWith('svc-apiserver listening'))).toBe(false);
    expect(nodeLeftovers(dir)).toEqual(NOTHING_LEFT);
  }, 60_000);
});
