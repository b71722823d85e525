// Two controller managers against one real API server: one leads through the Lease
// svc-system/svc-controller-manager, the other waits; stopping or killing the leader hands over.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { silentLog, type ManagerLog } from '../../../controllers/manager/index.js';
import { eventually, FAST_ELECTION, output, sleep, startCluster, type Cluster } from './support.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('leader election between controller managers', () => {
  let cluster: Cluster;
  beforeEach(async () => {
    cluster = await startCluster();
  });
  afterEach(async () => {
    await cluster.close();
  });

  it('lets one manager lead and run its controllers while the other waits', async () => {
    const ledOnce = new Set<string>();
    const log: ManagerLog = { ...silentLog, info: (message) => void ledOnce.add(/^became leader \((.*)\)$/.exec(message)?.[1] ?? '') };
    const a = await cluster.manager(FAST_ELECTION, log);
    const b = await cluster.manager(FAST_ELECTION, log);
    const managers = [a, b];
    await eventually(() => a.leading() || b.leading(), 'a leader');
    // Several lease durations of campaigning. Which one leads may change meanwhile: on a loaded
    // machine a leader that cannot renew within its 1 s deadline steps down (before its 2 s lease
    // expires for the other), which is the election working. What must hold is that they never
    // lead at once.
    for (const end = Date.now() + 3000; Date.now() < end; await sleep(20)) {
      expect(a.leading() && b.leading(), 'both lead').toBe(false);
    }
    const metrics = async (m: typeof a) => (await m.metrics.render()).body;
    const status = (value: 0 | 1) => new RegExp(`^leader_election_master_status\\{name="svc-controller-manager"\\} ${value}$`, 'm');
    // A moment when the Lease, the managers and their metrics all agree (the metrics are read in
    // this process, between the Lease's answer and the next turn of hand-over).
    let leader: typeof a | undefined;
    await eventually(async () => {
      const holder = await cluster.holder();
      const found = managers.find((m) => m.identity === holder);
      const other = managers.find((m) => m !== found);
      if (found === undefined || other === undefined || !found.leading() || other.leading()) return false;
      const [mine, theirs] = await Promise.all([metrics(found), metrics(other)]);
      if (!status(1).test(mine) || !status(0).test(theirs)) return false;
      leader = found;
      return true;
    }, 'the Lease holder to lead alone');
    const other = leader === a ? b : a;
    const lease = await cluster.client.get(builtin.leases, 'svc-controller-manager', { namespace: 'svc-system' });
    expect(lease.spec).toMatchObject({ leaseDurationSeconds: 2 });
    // Only a leader's controllers do any work: the stand-in namespace loop saw the system
    // namespaces in the leader; the other did nothing unless it led meanwhile.
    const adds = /^workqueue_adds_total\{name="namespace-controller"\} [1-9]/m;
    await eventually(async () => adds.test(await metrics(leader!)), 'namespace adds');
    if (!ledOnce.has(other.identity)) expect(await metrics(other)).not.toMatch(adds);
  });

  it('speaks protobuf to the API server by default (--svc-api-content-type), JSON when asked', async () => {
    const proto = await cluster.manager(['--leader-elect-resource-name=proto', ...FAST_ELECTION]);
    const json = await cluster.manager(['--leader-elect-resource-name=json', '--svc-api-content-type=application/json', ...FAST_ELECTION]);
    expect(proto.client.transport.codec.mediaType).toMatch(/^application\/vnd\.svc\.protobuf/);
    expect(json.client.transport.codec.mediaType).toBe('application/json');
    // Both campaign and lead on their own Lease: the Lease writes work in either encoding.
    await Promise.all([proto.firstTerm, json.firstTerm]);
    // Each is its Lease's only candidate; on a loaded machine one that missed its renew deadline
    // steps down and takes the Lease again, so the holder is read until it names it.
    await eventually(async () => (await cluster.holder('proto')) === proto.identity, 'the proto Lease held by its manager');
    await eventually(async () => (await cluster.holder('json')) === json.identity, 'the json Lease held by its manager');
  });

  it('hands over at once when the leader stops gracefully: the Lease is released, not left to expire', async () => {
    // A 60s lease: without the release the other would wait a minute; the Lease is read right after.
    const slow = ['--leader-elect-lease-duration=60s', '--leader-elect-renew-deadline=40s', '--leader-elect-retry-period=200ms'];
    const a = await cluster.manager(slow);
    await a.firstTerm;
    const b = await cluster.manager(slow);
    await sleep(500);
    expect(b.leading()).toBe(false);
    await a.close();
    expect(a.leading()).toBe(false);
    // Released, not left to expire: the Lease names no holder (or already the other manager,
    // whose 200 ms retry may have taken it between the release and this read).
    expect([undefined, b.identity]).toContain(await cluster.holder());
    await eventually(() => b.leading(), 'the other manager to lead');
    expect(await cluster.holder()).toBe(b.identity);
  });

  it('takes over after the lease expires when the leader process is killed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/svc-controller-manager.ts', `--svcconfig=${cluster.api.svcconfigPath}`, '--secure-port=0', ...FAST_ELECTION],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    try {
      // Led once it says so (starting under tsx on a loaded machine takes what it takes).
      await output(child, 'became leader (');
      const first = await cluster.holder();
      expect(first).toBeDefined();
      const b = await cluster.manager(FAST_ELECTION);
      child.kill('SIGKILL'); // no release: the lease must expire
      expect(await exited).toBe('SIGKILL');
      await eventually(() => b.leading(), 'the survivor to lead');
      expect(await cluster.holder()).toBe(b.identity);
      expect(first).not.toBe(b.identity);
      const lease = await cluster.client.get(builtin.leases, 'svc-controller-manager', { namespace: 'svc-system' });
      // 1 unless a loaded machine made the child step down and hand over (and back) before the kill.
      expect(lease.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('drains and releases the Lease on SIGTERM, then exits 0', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/svc-controller-manager.ts', `--svcconfig=${cluster.api.svcconfigPath}`, '--secure-port=0', '--leader-elect-lease-duration=60s', '--leader-elect-renew-deadline=40s'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await output(child, 'became leader (');
      child.kill('SIGTERM');
      expect(await exited, stderr.join('')).toBe(0);
      expect(await cluster.holder()).toBeUndefined();
      expect(stderr.join('')).toContain('SIGTERM received, shutting down');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
