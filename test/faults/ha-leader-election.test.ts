// Two svc-controller-managers and two svc-schedulers (the real bins) elect a leader each across
// two API servers on a 3-member etcd cluster, every daemon configured with a svcconfig that lists
// both servers (one replica of each through the first, the other through the second). While ReplicaSets are being created, the leader of each is killed with SIGKILL:
// the other replica takes its Lease over (a new holder, bounded by a deadline made of the
// configured lease, not a measured latency) and finishes the work — every ReplicaSet gets exactly
// its replicas (no pod created twice, none deleted as surplus), every pod is bound, and no pod is
// bound by two schedulers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import type { Pod } from '../../src/api/index.js';
import { builtin, Client, writeSvcconfig, type WatcherEvent } from '../../src/client/index.js';
import { eventually } from '../controllers/support.js';
import { node } from '../controllers/scheduler/support.js';
import { killAllApiServers } from './apiserver-process.js';
import { spawnDaemon, startHaControlPlane, type Daemon, type HaControlPlane } from './ha-control-plane.js';

const NS = 'ha-load';
const LEASE_SECONDS = 8;
const ELECTION = [`--leader-elect-lease-duration=${LEASE_SECONDS}s`, '--leader-elect-renew-deadline=6s', '--leader-elect-retry-period=2s'];
/** Generous: a takeover needs the old Lease to lapse and the next retry; the test's wait is bounded by this, nothing is measured. */
const TAKEOVER_GUARD_MS = 10 * LEASE_SECONDS * 1000;
const REPLICA_SETS = 8;
const REPLICAS = 5;
/** ReplicaSets created before the leaders are killed; the rest come while no one (then the new leader) leads. */
const BEFORE_KILL = 3;
const NODES = 3;

describe('leader election of controller managers and schedulers across API servers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ha-leaders-'));
  let plane: HaControlPlane;
  let client: Client;
  const daemons: Daemon[] = [];

  beforeAll(async () => {
    plane = await startHaControlPlane(dir, 2);
    client = await Client.fromSvcconfig(plane.svcconfig);
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < NODES; i++) {
      const created = await client.create(builtin.nodes, node(`node-${i}`));
      await client.updateStatus(builtin.nodes, { ...created, status: node(`node-${i}`).status });
    }
    // Replica b lists the servers the other way round: the replicas of each daemon campaign through different API servers.
    const reversed = join(dir, 'reversed.svcconfig');
    const [first, second] = plane.servers;
    await writeSvcconfig(reversed, { name: 'svc-ha', server: second!.url, servers: [first!.url], caData: plane.ca, token: plane.token });
    for (const [name, svcconfig] of [['a', plane.svcconfig], ['b', reversed]] as const) {
      daemons.push(spawnDaemon(`controller-manager-${name}`, 'svc-controller-manager', [`--svcconfig=${svcconfig}`, '--secure-port=0', '--controllers=replicaset,serviceaccount', ...ELECTION]));
      daemons.push(spawnDaemon(`scheduler-${name}`, 'svc-scheduler', [`--svcconfig=${svcconfig}`, '--secure-port=0', '-v=2', ...ELECTION]));
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.kill()));
    await client?.destroy();
    killAllApiServers();
    await plane?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const holder = async (lease: string): Promise<string | undefined> => {
    try {
      return (await client.get(builtin.leases, lease, { namespace: 'svc-system' })).spec?.holderIdentity ?? undefined;
    } catch {
      return undefined;
    }
  };
  /** The daemon that holds `lease` now: the one whose log names the holder's identity. */
  const leaderOf = async (lease: string, kind: string): Promise<{ identity: string; daemon: Daemon }> => {
    let found: { identity: string; daemon: Daemon } | undefined;
    await eventually(
      async () => {
        const identity = await holder(lease);
        const daemon = identity ? daemons.find((d) => d.name.startsWith(kind) && !d.exited && d.output().includes(identity)) : undefined;
        found = identity && daemon ? { identity, daemon } : undefined;
        return found !== undefined;
      },
      `a live ${kind} to hold the Lease ${lease}`,
      TAKEOVER_GUARD_MS + 60_000,
    );
    return found!;
  };
  const replicaSet = (i: number) => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `rs-${i}` },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { rs: `rs-${i}` } },
      template: { metadata: { labels: { rs: `rs-${i}` } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  });

  const events: WatcherEvent<Pod>[] = [];
  let watch: Subscription | undefined;
  afterAll(() => watch?.unsubscribe());

  /**
   * The work of `count` ReplicaSets is done, once: every one has exactly its replicas, every pod
   * the watch ever saw added (per ReplicaSet: none made twice, none removed as surplus), every pod
   * bound, to one node for good, and no pod reported bound by two schedulers.
   */
  const checkWorkDoneOnce = async (count: number, guardMs: number): Promise<void> => {
    const total = count * REPLICAS;
    await eventually(
      async () => {
        const pods = await client.list(builtin.pods, { namespace: NS });
        return pods.items.length >= total && pods.items.every((p) => p.spec.nodeName);
      },
      `${total} pods, all bound`,
      guardMs,
    );
    for (let i = 0; i < count; i++) {
      await eventually(async () => (await client.get(builtin.replicaSets, `rs-${i}`, { namespace: NS })).status?.replicas === REPLICAS, `rs-${i}'s status to count its pods`);
    }
    const added = new Map<string, Set<string>>();
    for (const e of events) {
      if (e.type !== 'ADDED' && e.type !== 'INIT_APPLY') continue;
      const rs = e.object.metadata.labels?.['rs'] ?? '';
      added.set(rs, (added.get(rs) ?? new Set<string>()).add(e.object.metadata.name ?? ''));
    }
    expect(new Map([...added].map(([rs, names]) => [rs, names.size]))).toEqual(new Map(Array.from({ length: count }, (_, i) => [`rs-${i}`, REPLICAS])));
    expect(events.filter((e) => e.type === 'DELETED')).toEqual([]);
    expect((await client.list(builtin.pods, { namespace: NS })).items).toHaveLength(total);

    const nodeOf = new Map<string, string>();
    for (const e of events) {
      if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'INIT_APPLY') continue;
      const bound = e.object.spec.nodeName;
      if (!bound) continue;
      const name = e.object.metadata.name ?? '';
      expect(nodeOf.get(name) ?? bound, `${name}'s node`).toBe(bound);
      nodeOf.set(name, bound);
    }
    const bindings = new Map<string, number>();
    for (const d of daemons.filter((d) => d.name.startsWith('scheduler'))) {
      for (const match of d.output().matchAll(/^bound (\S+) to \S+$/gm)) bindings.set(match[1]!, (bindings.get(match[1]!) ?? 0) + 1);
    }
    expect([...bindings].filter(([, n]) => n > 1)).toEqual([]);
  };

  it('hands each Lease to the other replica when its leader is killed under load, and no work is lost or done twice', async () => {
    watch = client.watch$(builtin.pods, { namespace: NS }).subscribe((e) => events.push(e));
    await eventually(() => events.some((e) => e.type === 'INIT_DONE'), 'the pod watch to list');
    await leaderOf('svc-controller-manager', 'controller-manager');
    await leaderOf('svc-scheduler', 'scheduler');
    // The namespace's default ServiceAccount (the serviceaccount loop's): pods need it to be admitted.
    await eventually(async () => (await client.get(builtin.serviceAccounts, 'default', { namespace: NS }).catch(() => undefined)) !== undefined, 'the default ServiceAccount');

    for (let i = 0; i < BEFORE_KILL; i++) await client.create(builtin.replicaSets, replicaSet(i), { namespace: NS });
    // Under load: the first pods are being created and bound.
    await eventually(() => events.some((e) => e.type === 'MODIFIED' && e.object.spec.nodeName), 'the first pod bound');
    // Who leads now, read at the kill (a loaded machine may have moved a Lease since the start).
    const [managerBefore, schedulerBefore] = await Promise.all([leaderOf('svc-controller-manager', 'controller-manager'), leaderOf('svc-scheduler', 'scheduler')]);
    await Promise.all([managerBefore.daemon.kill(), schedulerBefore.daemon.kill()]);
    for (let i = BEFORE_KILL; i < REPLICA_SETS; i++) await client.create(builtin.replicaSets, replicaSet(i), { namespace: NS });

    const managerAfter = await leaderOf('svc-controller-manager', 'controller-manager');
    const schedulerAfter = await leaderOf('svc-scheduler', 'scheduler');
    expect(managerAfter.identity).not.toBe(managerBefore.identity);
    expect(managerAfter.daemon).not.toBe(managerBefore.daemon);
    expect(schedulerAfter.identity).not.toBe(schedulerBefore.identity);
    expect(schedulerAfter.daemon).not.toBe(schedulerBefore.daemon);

    await checkWorkDoneOnce(REPLICA_SETS, TAKEOVER_GUARD_MS + 120_000);
    // The new leader did its share: the pods made after the kill were bound by it.
    expect(schedulerAfter.daemon.output()).toMatch(new RegExp(`^bound ${NS}/rs-${REPLICA_SETS - 1}-\\S+ to `, 'm'));
  }, 400_000);

  it('goes on when an API server dies under the daemons: their clients fail over, the work is done once', async () => {
    // The server the leading controller manager sends to: replica a's svcconfig names the first server first, b's the second.
    const manager = await leaderOf('svc-controller-manager', 'controller-manager');
    const victim = plane.servers[manager.daemon.name.endsWith('-a') ? 0 : 1]!;
    for (let i = REPLICA_SETS; i < REPLICA_SETS + 2; i++) await client.create(builtin.replicaSets, replicaSet(i), { namespace: NS });
    // Killed between writes: a pod create whose answer the kill swallowed would leave the manager
    // not knowing whether it was made (upstream's ReplicaSet controller has the same window);
    // this case is about the clients going on, the leader kill above is the one under load.
    await checkWorkDoneOnce(REPLICA_SETS + 2, TAKEOVER_GUARD_MS + 120_000);
    await victim.kill();
    // A read first: sent again on the next server whatever broke, it moves the test's client on
    // (a write on a connection the kill broke would be the caller's error, by design).
    await client.list(builtin.replicaSets, { namespace: NS });
    for (let i = REPLICA_SETS + 2; i < REPLICA_SETS + 4; i++) await client.create(builtin.replicaSets, replicaSet(i), { namespace: NS });
    // Whoever leads now (leadership may or may not have moved while a renewal found its server gone).
    await leaderOf('svc-controller-manager', 'controller-manager');
    await leaderOf('svc-scheduler', 'scheduler');
    await checkWorkDoneOnce(REPLICA_SETS + 4, TAKEOVER_GUARD_MS + 120_000);
  }, 400_000);
});
