// Issue #26, hollow nodes: the real node agent's parts on svc's simulated CRI runtime, against the
// test kit's API server (HTTPS, memory store) with the deployment and replicaset loops and the real
// scheduler in this process. Nodes register and turn Ready, a Deployment's pods are bound by the
// scheduler and run to Running on them; the start failure and probe failure rates make pods behave
// as set; the Node says it is simulated everywhere it can.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstValueFrom, take, toArray, type Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_NODE_ANNOTATION, SIMULATED_NODE_LABEL, type Deployment, type Node, type Pod } from '../../../src/api/index.js';
import { builtin, InformerFactory, type Client } from '../../../src/client/index.js';
import { scheduler } from '../../../controllers/index.js';
import { POD_UID_LABEL, SimulatedRuntime, startHollowNode, type HollowNode, type SimulationSettings } from '../../../src/nodeagent/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../../controllers/support.js';

let cluster: TestCluster;
let schedulerRun: Subscription;
let root: string;
let informers: InformerFactory;
const nodes: HollowNode[] = [];
const errors: string[] = [];

/** The reads of one pod's runtime a sync makes (a relist lists the whole runtime, with no filter). */
const POD_READS = new Set(['ListPodSandbox', 'ListContainers', 'PodSandboxStatus', 'ContainerStatus']);
/** The calls of a sync that starts or stops something (an image first, for a start). */
const POD_CHANGES = new Set(['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox', 'ImageStatus', 'PullImage', 'CreateContainer', 'StartContainer', 'StopContainer', 'RemoveContainer']);

/** A simulated runtime that keeps the calls made of it: which, and the env each container was created with. */
class RecordingRuntime extends SimulatedRuntime {
  readonly calls: string[] = [];
  /** The calls a pod's sync makes: its runtime read (lists by the pod's uid label, statuses) and every change. */
  readonly podCalls: string[] = [];
  readonly envs: Record<string, string>[] = [];

  override async handle(service: Parameters<SimulatedRuntime['handle']>[0], method: string, request: object): Promise<unknown> {
    this.calls.push(method);
    const listsOnePod = (request as { filter?: { labelSelector?: object } }).filter?.labelSelector !== undefined;
    if (POD_CHANGES.has(method) || (POD_READS.has(method) && (listsOnePod || !method.startsWith('List')))) this.podCalls.push(method);
    if (method === 'CreateContainer') {
      const env = (request as { config?: { envs?: { key: string; value: string }[] } }).config?.envs ?? [];
      this.envs.push(Object.fromEntries(env.map((e) => [e.key, e.value])));
    }
    return super.handle(service, method, request);
  }
}

/** The requests the counted node's agent sent (its client's throttle hears every one), `METHOD path`. */
const counted: string[] = [];
let countedRuntime: RecordingRuntime;
let resyncRuntime: RecordingRuntime;

function hollowNode(name: string, index: number, simulation: Partial<SimulationSettings> = {}, labels: Record<string, string> = {}, parts: { client?: Client; runtime?: SimulatedRuntime; syncFrequencyMs?: number } = {}): HollowNode {
  const node = startHollowNode({
    name,
    client: parts.client ?? cluster.client,
    runtime: parts.runtime,
    syncFrequencyMs: parts.syncFrequencyMs,
    informers,
    simulation,
    rootDir: join(root, name),
    nodeIp: `10.250.0.${index + 1}`,
    version: 'test',
    nodeOptions: { nodeLabels: labels, nodeStatusUpdateFrequency: 1_000 },
    onError: (what, error) => errors.push(`${name} ${what}: ${(error as Error).message}`),
  });
  nodes.push(node);
  return node;
}

const isReady = (node: Node) => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
interface ContainerStatusView {
  readonly containerID?: string;
  readonly restartCount?: number;
  readonly state?: { readonly terminated?: { readonly exitCode?: number; readonly reason?: string } };
  readonly lastState?: { readonly terminated?: { readonly exitCode?: number; readonly reason?: string } };
}
const containerStatus = (pod: Pod): ContainerStatusView | undefined => pod.status?.containerStatuses?.[0] as ContainerStatusView | undefined;
const podReady = (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

function deployment(name: string, replicas: number, pool: string, container: Record<string, unknown> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { nodeSelector: { pool }, automountServiceAccountToken: false, containers: [{ name: 'app', image: 'registry.example/app:1', ...container }] },
      },
    },
  } as Deployment;
}

async function podsOf(client: Client, app: string): Promise<readonly Pod[]> {
  return (await client.list(builtin.pods, { namespace: 'default', labelSelector: `app=${app}` })).items;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-hollow-test-'));
  cluster = await startTestCluster({ controllers: { controllers: ['deployment-controller', 'replicaset-controller', 'serviceaccount-controller'] } });
  informers = new InformerFactory(cluster.client);
  schedulerRun = scheduler({ client: cluster.client, scheduledEvents: false }).subscribe();
  hollowNode('hollow-a', 0, {}, { pool: 'plain' });
  hollowNode('hollow-b', 1, {}, { pool: 'plain' });
  hollowNode('hollow-fails', 2, { startFailureRate: 1 }, { pool: 'fails' });
  hollowNode('hollow-probes-fail', 3, { probeFailureRate: 1 }, { pool: 'probes-fail' });
  countedRuntime = new RecordingRuntime();
  const countingClient = cluster.newClient({
    throttle: async ({ method, path }) => {
      counted.push(`${method} ${path}`);
    },
  });
  hollowNode('hollow-counted', 4, {}, { pool: 'counted' }, { client: countingClient, runtime: countedRuntime });
  resyncRuntime = new RecordingRuntime();
  // Each pod synced again 300 to 450 ms after its last sync, where the agent's default is a minute.
  hollowNode('hollow-resync', 5, {}, { pool: 'resync' }, { runtime: resyncRuntime, syncFrequencyMs: 300 });
}, 60_000);

afterAll(async () => {
  schedulerRun?.unsubscribe();
  for (const node of nodes) await node.close();
  informers?.stop();
  await cluster?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('hollow nodes', () => {
  it('register, turn Ready and say that their containers are simulated', async () => {
    await eventually(async () => {
      const list = await cluster.client.list(builtin.nodes, { labelSelector: `${SIMULATED_NODE_LABEL}=true` });
      return list.items.length === nodes.length && list.items.every(isReady);
    }, 'every hollow node Ready');
    const node = await cluster.client.get(builtin.nodes, 'hollow-a');
    expect(node.metadata.labels?.[SIMULATED_NODE_LABEL]).toBe('true');
    expect(node.metadata.annotations?.[SIMULATED_NODE_ANNOTATION]).toMatch(/simulated/);
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^svc-simulated:\/\//);
    // No agent server behind it: port 0, so the API server reaches for no logs, exec or stats there.
    expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 0 } });
    expect(node.status?.addresses).toContainEqual({ type: 'InternalIP', address: '10.250.0.1' });
    // The Lease is the agent's other loop, started beside the status one: Ready says nothing of
    // whether its first renewal has landed yet, so it is waited for, not read once.
    const leaseOf = () => cluster.client.get(builtin.leases, 'hollow-a', { namespace: 'svc-node-lease' }).catch(() => undefined);
    await eventually(async () => (await leaseOf()) !== undefined, "hollow-a's Lease");
    expect((await leaseOf())?.spec?.holderIdentity).toBe('hollow-a');
  });

  it("cache their pods' ConfigMaps and Secrets for the TTL the ttl controller puts on their Node", async () => {
    const a = nodes.find((n) => n.nodeName === 'hollow-a')!;
    // No annotation (this cluster runs no ttl controller): no cache, every read goes to the server.
    expect(a.objectTtlMs()).toBe(0);
    await cluster.client.patch(builtin.nodes, 'hollow-a', { metadata: { annotations: { 'node.alpha.kubernetes.io/ttl': '30' } } });
    await eventually(async () => a.objectTtlMs() === 30_000, "hollow-a's object TTL from its Node's annotation");
    await cluster.client.patch(builtin.nodes, 'hollow-a', { metadata: { annotations: { 'node.alpha.kubernetes.io/ttl': '0' } } });
    await eventually(async () => a.objectTtlMs() === 0, 'the TTL back to 0');
  });

  it("run a Deployment's pods to Running through the real scheduler", async () => {
    await cluster.client.create(builtin.deployments, deployment('web', 6, 'plain'));
    await eventually(async () => {
      const pods = await podsOf(cluster.client, 'web');
      return pods.length === 6 && pods.every((pod) => pod.status?.phase === 'Running' && podReady(pod));
    }, 'six Running and Ready pods');
    const pods = await podsOf(cluster.client, 'web');
    expect(new Set(pods.map((pod) => pod.spec.nodeName))).toEqual(new Set(['hollow-a', 'hollow-b']));
    for (const pod of pods) {
      expect(containerStatus(pod)?.containerID).toMatch(/^svc-simulated:\/\/[0-9a-f]{64}$/);
      expect(pod.status?.podIP).toMatch(/^10\.88\./);
      expect(pod.status?.hostIP).toBe(pod.spec.nodeName === 'hollow-a' ? '10.250.0.1' : '10.250.0.2');
    }
    const counts = nodes[0]!.runtime.counts().running + nodes[1]!.runtime.counts().running;
    expect(counts).toBe(6);
    // Each node holds its pods as the API server shows them now, the echo of its own status write
    // included (a RECONCILE): not the version it first ran beside the newer one its source keeps.
    const held = () => [...nodes[0]!.pods(), ...nodes[1]!.pods()].filter((pod) => pod.metadata.labels?.['app'] === 'web');
    await eventually(async () => {
      const shown = new Map((await podsOf(cluster.client, 'web')).map((pod) => [pod.metadata.uid, pod.metadata.resourceVersion]));
      return held().length === 6 && held().every((pod) => shown.get(pod.metadata.uid) === pod.metadata.resourceVersion);
    }, "the nodes' pods at the versions the API server shows");
    for (const pod of held()) {
      expect(pod.status?.phase).toBe('Running');
      expect(pod.metadata.managedFields).toBeUndefined();
    }
    await eventually(async () => {
      const deployment = await cluster.client.get(builtin.deployments, 'web', { namespace: 'default' });
      return deployment.status?.availableReplicas === 6;
    }, 'the Deployment available');
  });

  it('give up on pods whose containers fail to start, at the start failure rate', async () => {
    await cluster.client.create(builtin.deployments, deployment('broken', 2, 'fails'));
    await eventually(async () => {
      const pods = await podsOf(cluster.client, 'broken');
      return pods.length === 2 && pods.every((pod) => (containerStatus(pod)?.restartCount ?? 0) >= 1);
    }, 'the containers restarted after failing to start');
    for (const pod of await podsOf(cluster.client, 'broken')) {
      expect(pod.spec.nodeName).toBe('hollow-fails');
      expect(podReady(pod)).toBe(false);
      const status = containerStatus(pod)!;
      const terminated = status.state?.terminated ?? status.lastState?.terminated;
      expect(terminated?.exitCode).toBe(128);
      expect(terminated?.reason).toBe('StartError');
    }
  });

  it('keep pods whose readiness probes fail Running but not Ready, at the probe failure rate', async () => {
    const probe = { readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1 } };
    await cluster.client.create(builtin.deployments, deployment('unready', 2, 'probes-fail', probe));
    await cluster.client.create(builtin.deployments, deployment('ready', 2, 'plain', { readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 } }));
    await eventually(async () => {
      const pods = await podsOf(cluster.client, 'ready');
      return pods.length === 2 && pods.every(podReady);
    }, 'the pods whose probes pass are Ready');
    await eventually(async () => {
      const pods = await podsOf(cluster.client, 'unready');
      return pods.length === 2 && pods.every((pod) => pod.status?.phase === 'Running');
    }, 'the pods whose probes fail run');
    await eventually(async () => {
      const events = (await cluster.client.list(builtin.coreEvents, { namespace: 'default' })).items;
      return events.some((event) => event.reason === 'Unhealthy' && event.involvedObject.name?.startsWith('unready-') && /simulated probe failure/.test(event.message ?? ''));
    }, 'an Unhealthy event of a failing readiness probe');
    for (const pod of await podsOf(cluster.client, 'unready')) {
      expect(pod.spec.nodeName).toBe('hollow-probes-fail');
      expect(podReady(pod)).toBe(false);
    }
  });

  it('sync a Running pod again without a runtime call until its runtime changes, and replace its container when its spec changes', async () => {
    const node = nodes.find((n) => n.nodeName === 'hollow-resync')!;
    await cluster.client.create(builtin.deployments, deployment('resync', 1, 'resync'));
    await eventually(async () => {
      const pods = await podsOf(cluster.client, 'resync');
      return pods.length === 1 && pods[0]!.status?.phase === 'Running';
    }, 'the pod Running on hollow-resync');
    const name = (await podsOf(cluster.client, 'resync'))[0]!.metadata.name!;
    const uid = (await podsOf(cluster.client, 'resync'))[0]!.metadata.uid!;
    type Status = ContainerStatusView & { readonly image?: string; readonly state?: { readonly running?: object } };
    const statusOf = async () => (await cluster.client.get(builtin.pods, name, { namespace: 'default' })).status?.containerStatuses?.[0] as Status | undefined;
    /** Resolves once `count` more syncs of the pod have ended. */
    const syncs = (count: number) =>
      new Promise<void>((resolve) => {
        let seen = 0;
        const subscription = node.workers.results$.subscribe((result) => {
          if (result.key !== uid || ++seen < count) return;
          subscription.unsubscribe();
          resolve();
        });
      });

    // Six periodic syncs of a pod whose runtime does not change: they start from the read the last
    // sync kept (the kubelet's pod cache), where each used to read the pod's runtime twice. At most
    // one read: the relist's last look at the pod's start may still come, and is a change.
    await syncs(2);
    const from = resyncRuntime.podCalls.length;
    await syncs(6);
    const calls = resyncRuntime.podCalls.slice(from);
    const count = (method: string) => calls.filter((m) => m === method).length;
    expect(count('ListPodSandbox')).toBeLessThanOrEqual(1);
    expect([count('ListContainers'), count('PodSandboxStatus'), count('ContainerStatus')]).toEqual([count('ListPodSandbox'), count('ListPodSandbox'), count('ListPodSandbox')]);
    expect(calls.filter((m) => !POD_READS.has(m))).toEqual([]);

    // Someone else writes a status field the agent owns: the agent writes its own back (a
    // RECONCILE is answered even by a sync that finds nothing else changed).
    await cluster.client.patchStatus(builtin.pods, name, { status: { message: 'not the agent' } }, { namespace: 'default' });
    await eventually(async () => (await cluster.client.get(builtin.pods, name, { namespace: 'default' })).status?.message === undefined, "the agent's status written back");

    // A change the agent did not make (its container stopped behind its back, as a process that
    // exits): the relist sees it, the pod's next sync reads its runtime and restarts the container.
    const first = (await statusOf())!;
    const listed = (await node.runtime.handle('RuntimeService', 'ListContainers', { filter: { labelSelector: { [POD_UID_LABEL]: uid } } })) as { containers: { id: string }[] };
    await node.runtime.handle('RuntimeService', 'StopContainer', { containerId: listed.containers[0]!.id });
    await eventually(async () => {
      const status = await statusOf();
      return status?.restartCount === 1 && status.state?.running !== undefined;
    }, 'the stopped container restarted');
    const restarted = (await statusOf())!;
    expect(restarted.containerID).not.toBe(first.containerID);

    // A new image (as `kubectl set image` on the pod): the running container no longer has its spec's hash.
    const current = await cluster.client.get(builtin.pods, name, { namespace: 'default' });
    await cluster.client.update(builtin.pods, { ...current, spec: { ...current.spec, containers: current.spec.containers.map((c) => ({ ...c, image: 'registry.example/app:2' })) } });
    await eventually(async () => {
      const status = await statusOf();
      return status?.image === 'registry.example/app:2' && status.state?.running !== undefined;
    }, 'the container replaced with the new image');
    const replaced = (await statusOf())!;
    expect(replaced.restartCount).toBe(2);
    expect(replaced.containerID).not.toBe(restarted.containerID);
    expect(replaced.lastState?.terminated?.reason).toBe('Completed');
    const events = (await cluster.client.list(builtin.coreEvents, { namespace: 'default' })).items;
    expect(events.some((event) => event.reason === 'Killing' && event.involvedObject.uid === uid && /definition changed/.test(event.message ?? ''))).toBe(true);
    // Replaced once: the periodic syncs after it find the new container's hash the spec's.
    await syncs(3);
    expect(node.runtime.counts()).toMatchObject({ containers: 3, running: 1 });
  });

  it('list their runtime only when it changed (the evented relist), and start pods without listing Services', async () => {
    const counted$ = nodes.find((n) => n.nodeName === 'hollow-counted')!;
    await eventually(async () => isReady(await cluster.client.get(builtin.nodes, 'hollow-counted')), 'hollow-counted Ready');
    // Idle: three status checks (a second apart here) pass without a runtime list; the daemon's
    // 1 s relist would have listed about three times meanwhile.
    const listsBefore = countedRuntime.calls.filter((m) => m === 'ListPodSandbox').length;
    await firstValueFrom(counted$.status.checks$.pipe(take(3), toArray()));
    expect(countedRuntime.calls.filter((m) => m === 'ListPodSandbox').length).toBe(listsBefore);

    // Service links come from the fleet's shared Services informer: the Service is in it before the pods exist.
    await cluster.client.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'counted-svc', namespace: 'default' }, spec: { ports: [{ port: 8080 }], clusterIP: '10.0.0.77' } } as never);
    const services = informers.informer(builtin.services);
    await eventually(async () => services.store.getByName('counted-svc', 'default') !== undefined, 'the Service in the shared informer');
    counted.length = 0;
    await cluster.client.create(builtin.deployments, deployment('counted', 3, 'counted'));
    await eventually(async () => {
      const pods = await podsOf(cluster.client, 'counted');
      return pods.length === 3 && pods.every((pod) => pod.status?.phase === 'Running' && podReady(pod));
    }, 'three Running pods on hollow-counted');
    // A change of the runtime (the pods' sandboxes and containers) was listed.
    expect(countedRuntime.calls.filter((m) => m === 'ListPodSandbox').length).toBeGreaterThan(listsBefore);
    expect(countedRuntime.envs).toHaveLength(3);
    for (const env of countedRuntime.envs) expect(env['COUNTED_SVC_SERVICE_HOST']).toBe('10.0.0.77');
    // Per pod: no Services listed (the informer), one status write or two (ContainerCreating, Running).
    expect(counted.filter((r) => /^GET .*\/services(\?|$)/.test(r))).toEqual([]);
    const statusWrites = counted.filter((r) => /^PATCH .*\/pods\/[^/]+\/status/.test(r)).length;
    expect(statusWrites).toBeGreaterThanOrEqual(3);
    expect(statusWrites).toBeLessThanOrEqual(6);
  });

  it('hold one version of a running pod: the one they started is let go once a newer one is in', async () => {
    // Memory a pod is what limits a density run (docs/benchmarks.md, branch hollowmem): the pod
    // workers kept the version they started beside the source's newer one, and so did the probe
    // manager for every running container, probes or not.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const first = new Map<string, WeakRef<Pod>>();
    const watching = informers.informer(builtin.pods, { fieldSelector: 'spec.nodeName=hollow-counted' }).events$.subscribe(({ object }) => {
      if (object.metadata.labels?.['app'] === 'single' && !first.has(object.metadata.uid!)) first.set(object.metadata.uid!, new WeakRef(object));
    });
    await cluster.client.create(builtin.deployments, deployment('single', 1, 'counted'));
    const node = nodes.find((n) => n.nodeName === 'hollow-counted')!;
    await eventually(async () => {
      const [pod] = await podsOf(cluster.client, 'single');
      const held = node.pods().find((p) => p.metadata.uid === pod?.metadata.uid);
      return pod?.status?.phase === 'Running' && held !== undefined && held.metadata.resourceVersion === pod.metadata.resourceVersion;
    }, 'the single pod Running, its node holding the version the API server shows');
    watching.unsubscribe();
    expect(first.size).toBe(1);
    // A sync that began before the newer version came in may still hold the first one until it
    // ends: collected again until it is gone (a WeakRef's target lives to the end of the job that
    // made it, hence the turn of the event loop before each collection).
    await eventually(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      return [...first.values()].every((ref) => ref.deref() === undefined);
    }, 'the first version of the pod collected');
  });
});
