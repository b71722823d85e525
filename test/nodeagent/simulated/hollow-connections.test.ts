// Issue #26, the hollow nodes' sockets to the API server: a fleet (`startHollowNodes`, the clients
// `svc hollow-nodes` makes) of N nodes whose pods arrive all at once holds at most one socket per
// node (its pod watch) plus the fleet's bounded request pools (`--api-connections` each for pods
// and Events, `heartbeatConnections(N)` for Leases and Node status) and the shared informers' watches — never a socket per node per
// client. Counted in this process from undici's diagnostics channels: a socket is the fleet's when
// its first request carries a hollow node's user agent, and it counts until it is closed.
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/index.js';
import { hollowNodesFlags, startHollowNodes, type RunningHollowNodes } from '../../../src/cli/hollow-nodes-command.js';
import { parseFlags } from '../../../src/cli/flags.js';
import { builtin, writeSvcconfig } from '../../../src/client/index.js';
import { heartbeatConnections } from '../../../src/nodeagent/index.js';
import { scheduler } from '../../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../../controllers/support.js';

const NODES = 20;
const PODS_PER_NODE = 3;
const API_CONNECTIONS = 2;
/** The shared informers' watches (simulated Nodes, Services) and their lists' sockets. */
const SHARED = 4;

let cluster: TestCluster;
let dir: string;
let fleet: RunningHollowNodes | undefined;
let schedulerRun: Subscription;

const fleetSockets = new Set<unknown>();
let peak = 0;
const onHeaders = (message: unknown) => {
  const { headers, socket } = message as { headers: string; socket: unknown };
  if (!/\r\nuser-agent: nodeagent\/hollow/i.test(`\r\n${headers}`)) return;
  fleetSockets.add(socket);
  peak = Math.max(peak, fleetSockets.size);
};
const onClosed = (message: unknown) => fleetSockets.delete((message as { socket: unknown }).socket);

beforeAll(async () => {
  diagnostics.subscribe('undici:client:sendHeaders', onHeaders);
  diagnostics.subscribe('undici:client:disconnected', onClosed);
  dir = mkdtempSync(join(tmpdir(), 'svc-hollow-conn-'));
  cluster = await startTestCluster({ controllers: { controllers: ['deployment-controller', 'replicaset-controller', 'serviceaccount-controller'] } });
  schedulerRun = scheduler({ client: cluster.client, scheduledEvents: false }).subscribe();
  const svcconfig = join(dir, 'admin.svcconfig');
  await writeSvcconfig(svcconfig, { server: cluster.url, caData: cluster.caPem, token: cluster.token, name: 'test' });
  const parsed = parseFlags(hollowNodesFlags, [`--svcconfig=${svcconfig}`, `--count=${NODES}`, '--start-rate=0', `--api-connections=${API_CONNECTIONS}`, `--root-dir=${join(dir, 'nodes')}`]);
  if (parsed.help) throw new Error('unreachable: no --help given');
  fleet = await startHollowNodes(parsed.values, { out: () => undefined, err: () => undefined });
}, 120_000);

afterAll(async () => {
  schedulerRun?.unsubscribe();
  await fleet?.close();
  await cluster?.stop();
  diagnostics.unsubscribe('undici:client:sendHeaders', onHeaders);
  diagnostics.unsubscribe('undici:client:disconnected', onClosed);
  rmSync(dir, { recursive: true, force: true });
});

describe('a fleet of hollow nodes', () => {
  it("holds a socket per node (its pod watch) and its bounded pools, however many nodes' pods arrive at once", async () => {
    const ready = async () => (await cluster.client.list(builtin.nodes)).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    await eventually(async () => (await ready()) === NODES, 'every hollow node Ready', 120_000);
    await cluster.client.create(builtin.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'spread', namespace: 'default' },
      spec: {
        replicas: NODES * PODS_PER_NODE,
        selector: { matchLabels: { app: 'spread' } },
        template: { metadata: { labels: { app: 'spread' } }, spec: { automountServiceAccountToken: false, containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
      },
    } as Deployment);
    const running = async () => (await cluster.client.list(builtin.pods, { namespace: 'default', labelSelector: 'app=spread' })).items.filter((p) => p.status?.phase === 'Running');
    await eventually(async () => (await running()).length === NODES * PODS_PER_NODE, 'every pod Running', 180_000);
    // The pods were spread (the scheduler's least-allocated score), so most nodes wrote pod status and Events at once.
    expect(new Set((await running()).map((p) => p.spec.nodeName)).size).toBeGreaterThan(NODES / 2);
    expect(peak).toBeGreaterThanOrEqual(NODES);
    expect(peak).toBeLessThanOrEqual(NODES + 2 * API_CONNECTIONS + heartbeatConnections(NODES) + SHARED);
  }, 400_000);
});
