// Issue #26, the hollow fleet's heartbeats under load: every node's Lease renewal goes through the
// fleet's heartbeat pool, sized from the node count (`heartbeatConnections`), apart from the pods'
// pool. The API server (the test kit's write tap) holds every pod status PATCH, so the pods' pool
// of one socket is stuck behind a burst of them, and holds one node's Lease renewals, so one
// heartbeat socket is stuck as a slow answer would keep it: every other node's Lease is still
// renewed, again and again, while both are held. With a heartbeat pool of `--api-connections`
// sockets (one here, as before this pool was sized from the count) the held renewal stops every
// node's. Asserted by counts of answered writes, not by time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/index.js';
import { hollowNodesFlags, startHollowNodes, type RunningHollowNodes } from '../../../src/cli/hollow-nodes-command.js';
import { parseFlags } from '../../../src/cli/flags.js';
import { builtin, writeSvcconfig } from '../../../src/client/index.js';
import { heartbeatConnections, hollowNodeName } from '../../../src/nodeagent/index.js';
import { scheduler } from '../../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../../controllers/support.js';

const NODES = 6;
const PREFIX = 'beat-';
const SLOW_NODE = hollowNodeName(PREFIX, 0);
const HEARTBEAT_AGENT = 'nodeagent/hollow-heartbeat';
const PODS_AGENT = 'nodeagent/hollow';

let cluster: TestCluster;
let dir: string;
let fleet: RunningHollowNodes | undefined;
let schedulerRun: Subscription;
const held: (() => void)[] = [];
const taps: (() => void)[] = [];
/** Stops holding (the taps off first, so no write is held after) and lets every held write be served. */
const releaseAll = () => {
  for (const stop of taps.splice(0)) stop();
  for (const release of held.splice(0)) release();
};
const hold = () => new Promise<void>((resolve) => held.push(resolve));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-hollow-beats-'));
  cluster = await startTestCluster({ controllers: { controllers: ['deployment-controller', 'replicaset-controller'] } });
  schedulerRun = scheduler({ client: cluster.client, scheduledEvents: false }).subscribe();
  const svcconfig = join(dir, 'admin.svcconfig');
  await writeSvcconfig(svcconfig, { server: cluster.url, caData: cluster.caPem, token: cluster.token, name: 'test' });
  const parsed = parseFlags(hollowNodesFlags, [`--svcconfig=${svcconfig}`, `--count=${NODES}`, `--name-prefix=${PREFIX}`, '--start-rate=0', '--api-connections=1', `--root-dir=${join(dir, 'nodes')}`]);
  if (parsed.help) throw new Error('unreachable: no --help given');
  fleet = await startHollowNodes(parsed.values, { out: () => undefined, err: () => undefined });
}, 120_000);

afterAll(async () => {
  releaseAll();
  schedulerRun?.unsubscribe();
  await fleet?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a hollow fleet's heartbeats", () => {
  it('are sized from the node count: renewals a second × 1 s, at least 4', () => {
    expect(heartbeatConnections(6)).toBe(4);
    expect(heartbeatConnections(1_000)).toBe(100);
    expect(heartbeatConnections(5_000)).toBe(500);
    expect(heartbeatConnections(2_501)).toBe(251);
  });

  it("renew every node's Lease while pod status writes and one node's renewal are held at the server", async () => {
    const ready = async () => (await cluster.client.list(builtin.nodes)).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    await eventually(async () => (await ready()) === NODES, 'every hollow node Ready', 120_000);

    let podStatusHeld = 0;
    let podStatusAnswered = 0;
    let slowHeld = 0;
    const renewed = new Map<string, number>();
    const isPodStatus = (path: string) => /\/pods\/[^/?]+\/status/.test(path);
    const leaseOf = (path: string) => /\/leases\/([^/?]+)/.exec(path)?.[1];
    taps.push(cluster.writeTap.interleave(PODS_AGENT, async (write) => {
      if (write.method !== 'PATCH' || !isPodStatus(write.path)) return;
      podStatusHeld += 1;
      await hold();
    }));
    taps.push(cluster.writeTap.listen(PODS_AGENT, (write) => {
      if (isPodStatus(write.path)) podStatusAnswered += 1;
    }));
    taps.push(cluster.writeTap.interleave(HEARTBEAT_AGENT, async (write) => {
      if (write.method !== 'PUT' || leaseOf(write.path) !== SLOW_NODE) return;
      slowHeld += 1;
      await hold();
    }));
    taps.push(cluster.writeTap.listen(HEARTBEAT_AGENT, (write) => {
      const lease = write.method === 'PUT' ? leaseOf(write.path) : undefined;
      if (lease !== undefined) renewed.set(lease, (renewed.get(lease) ?? 0) + 1);
    }));

    // The burst: two pods a node, each one status PATCH the server holds (the pods' pool has one socket).
    await cluster.client.create(builtin.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'burst', namespace: 'default' },
      spec: {
        replicas: NODES * 2,
        selector: { matchLabels: { app: 'burst' } },
        template: { metadata: { labels: { app: 'burst' } }, spec: { automountServiceAccountToken: false, containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
      },
    } as Deployment);
    await eventually(() => podStatusHeld >= 1 && slowHeld >= 1, 'a pod status PATCH and the slow node\'s renewal held', 120_000);
    renewed.clear();

    // Two renewals answered after the holds began: the second was sent while both were held.
    const others = Array.from({ length: NODES - 1 }, (_, i) => hollowNodeName(PREFIX, i + 1));
    await eventually(() => others.every((node) => (renewed.get(node) ?? 0) >= 2), "every other node's Lease renewed twice", 55_000);
    expect(podStatusAnswered).toBe(0);
    expect(renewed.get(SLOW_NODE) ?? 0).toBe(0);
    expect(held.length).toBeGreaterThanOrEqual(2);
    releaseAll();
  }, 300_000);
});
