// A node failing under `svc up`, with real agents and containers: a second node agent (its own
// containerd) joins the cluster with the admin svcconfig; a Deployment's pod runs there. The agent
// is stopped: after the grace period (the manager's default 50 s) the node lifecycle controller
// marks the node Unknown and taints it unreachable, the taint-eviction loop evicts the pod (its
// toleration lasts 2 s), and the Deployment's replacement runs on svc up's own node; a pod that
// tolerates the taint for ever stays. The agent starts again: the node is Ready and the taints go.
// Restarting svc up's controller manager (all of svc up) is covered by the virtual-time tests;
// here a steady cluster is watched to evict nothing before the failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { eventually } from '../controllers/support.js';
import { startContainerd, type RunningContainerd } from '../support/containerd.js';
import { requireKubectl } from '../support/kubectl.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';
import { agentDirs, freePort, spawnAgent, uniqueNodeName, unmountUnder, writeAgentConfig, type AgentProcess } from '../nodeagent/daemon/support.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-e2e-nodefail-');
const config = join(dir, 'admin.svcconfig');
const second = uniqueNodeName('second');
let up: UpProcess | undefined;
let client: Client;
let containerd: RunningContainerd | undefined;
let agent: AgentProcess | undefined;
let agentArgs: string[];
let agentRoot: string;
let firstNode: string;

const UNREACHABLE = { key: 'node.kubernetes.io/unreachable', operator: 'Exists' as const, effect: 'NoExecute' as const };
const podSpec = (extra: Partial<Pod['spec']> = {}): Pod['spec'] => ({
  terminationGracePeriodSeconds: 1,
  containers: [{ name: 'c', image: 'svc.local/busybox:latest', imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }],
  ...extra,
});
const readyOf = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
/** The Ready status of a node, undefined while it is not registered. */
const nodeReady = async (name: string) => {
  try {
    return readyOf(await client.get(builtin.nodes, name));
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
};
const taintsOf = async (name: string) => ((await client.get(builtin.nodes, name)).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const webPods = async () => (await client.list(builtin.pods, { namespace: 'default', labelSelector: 'app=web' })).items;
const running = (pod: Pod) => pod.status?.phase === 'Running' && pod.metadata.deletionTimestamp === undefined;

beforeAll(async () => {
  requireKubectl();
  up = spawnUp(dir);
  await up.line((line) => line.startsWith('  kubectl'));
  client = await Client.fromSvcconfig(config);
  await eventually(async () => (await client.list(builtin.nodes)).items.some((n) => readyOf(n) === 'True'), 'the svc up node Ready', 60_000);
  firstNode = (await client.list(builtin.nodes)).items[0]!.metadata.name!;
  // A pod on svc up's node first: its bridge's route then exists, and the second node's containerd picks another range.
  await client.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'first', namespace: 'default' }, spec: podSpec() });
  await eventually(async () => running(await client.get(builtin.pods, 'first', { namespace: 'default' })), 'a pod running on the first node', 90_000);
  // The cluster CIDR is one block, and node-ipam hands it to the first node without one that it
  // reconciles: svc up's node must hold it before the second node registers, or under load (a
  // term starting late, a patch refused with 409 while the node's status moves) the second can
  // be reconciled first and take it — what the first test then saw as a podCIDR that never came.
  await eventually(async () => (await client.get(builtin.nodes, firstNode)).spec?.podCIDR !== undefined, "the first node's podCIDR", 30_000).catch((error: Error) => {
    const said = [...up!.lines, ...up!.stderr.join('').split('\n')].filter((line) => /leader|node-ipam|CIDR|term/i.test(line)).slice(-30);
    throw new Error(`${error.message}; svc up said:\n${said.join('\n')}`);
  });
  containerd = await startContainerd();
  const dirs = agentDirs(join(dir, 'second'));
  agentRoot = dirs.rootDir;
  writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: await freePort(), clientCaFile: join(dir, 'pki', 'ca.crt') });
  agentArgs = ['--config', dirs.config, '--svcconfig', config, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', second];
  agent = spawnAgent(agentArgs);
  await agent.running();
  await eventually(async () => (await nodeReady(second)) === 'True', 'the second node Ready', 60_000);
}, 300_000);

afterAll(async () => {
  await agent?.stop();
  await containerd?.stop();
  if (agentRoot) unmountUnder(agentRoot);
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    const stopped = await Promise.race([up.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000))]);
    if (!stopped) {
      up.child.kill('SIGKILL');
      await up.exited;
    }
  }
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('pod CIDRs under svc up', () => {
  it("gives svc up's node its own range as podCIDR, and a node that joins none (the range is one block)", async () => {
    const range = up!.lines.find((line) => / pods on /.test(line))!.split(' pods on ')[1];
    // (beforeAll waited for the first node's podCIDR before the second node joined.)
    expect((await client.get(builtin.nodes, firstNode)).spec).toMatchObject({ podCIDR: range, podCIDRs: [range] });
    await eventually(async () => (await client.list(builtin.coreEvents, { namespace: 'default' })).items.some((e) => e.reason === 'CIDRNotAvailable' && e.involvedObject.name === second), 'CIDRNotAvailable for the second node', 30_000);
    expect((await client.get(builtin.nodes, second)).spec?.podCIDR).toBeUndefined();
  });
});

describe('a node agent that stops under svc up', () => {
  it("gets its node tainted and its Deployment pod evicted and rescheduled; back again, the taints go", async () => {
    // The first node is cordoned while the Deployment's pod is placed: it lands on the second.
    await client.patch(builtin.nodes, firstNode, { spec: { unschedulable: true } });
    await client.create(builtin.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec({ tolerations: [{ ...UNREACHABLE, tolerationSeconds: 2 }] }) },
      },
    });
    // A pod that tolerates the unreachable taint for ever.
    await client.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stays', namespace: 'default' }, spec: podSpec({ nodeName: second, tolerations: [UNREACHABLE] }) });
    await eventually(async () => (await webPods()).some((p) => running(p) && p.spec.nodeName === second), 'the web pod running on the second node', 120_000);
    await eventually(async () => running(await client.get(builtin.pods, 'stays', { namespace: 'default' })), "'stays' running", 60_000);
    const evictedPod = (await webPods()).find((p) => p.spec.nodeName === second)!.metadata.name!;
    await client.patch(builtin.nodes, firstNode, { spec: { unschedulable: false } });
    expect(await taintsOf(second)).toEqual([]);

    await agent!.stop();
    await eventually(async () => (await nodeReady(second)) === 'Unknown', 'the second node Unknown', 120_000);
    await eventually(async () => (await taintsOf(second)).join() === 'node.kubernetes.io/unreachable:NoExecute,node.kubernetes.io/unreachable:NoSchedule', 'the unreachable taints', 30_000);
    // Evicted (its agent is gone, so it stays Terminating), replaced on the first node.
    await eventually(async () => (await client.get(builtin.pods, evictedPod, { namespace: 'default' })).metadata.deletionTimestamp !== undefined, 'the web pod evicted', 60_000);
    const evicted = await client.get(builtin.pods, evictedPod, { namespace: 'default' });
    expect(evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager' });
    await eventually(async () => (await webPods()).some((p) => running(p) && p.spec.nodeName === firstNode), 'the replacement running on the first node', 120_000);
    expect((await client.get(builtin.pods, 'stays', { namespace: 'default' })).metadata.deletionTimestamp).toBeUndefined();

    // The agent comes back: Ready, taints lifted, and it finishes the evicted pod.
    agent = spawnAgent(agentArgs);
    await agent.running();
    await eventually(async () => (await nodeReady(second)) === 'True', 'the second node Ready again', 60_000);
    await eventually(async () => (await taintsOf(second)).length === 0, 'the taints lifted', 30_000);
    await eventually(async () => {
      try {
        await client.get(builtin.pods, evictedPod, { namespace: 'default' });
        return false;
      } catch (error) {
        return (error as { code?: number }).code === 404;
      }
    }, 'the evicted pod gone', 60_000);
  }, 420_000);
});
