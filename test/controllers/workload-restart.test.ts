// Issue #22: the controller manager, every loop on, restarted over workloads at their desired state
// writes nothing; killed in the middle of a Deployment's rollout and started again, it finishes the
// rollout without creating one pod more than the rollout needs. The cluster is svc/testing's; no
// node runs the pods, so the test plays the node agent (binds them, makes them Ready or ends them
// through pods/status, completes their deletion).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet, Deployment, Job, Pod, ReplicaSet, StatefulSet } from '../../src/api/index.js';
import { builtin, Informer, type Client } from '../../src/client/index.js';
import { selectControllers, targetNodeOf, type RunningControllerManager } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';
import { createNamespace, iso } from './workloads/replica-fixtures.js';
import { createNode } from './workload-support.js';

// Every default loop but node health: these Nodes have no agent (no status, no Lease), so the node
// lifecycle controller would rightly taint them not-ready and the loops would chase that instead.
const WORKLOAD_LOOPS = { controllers: selectControllers(['*', '-node-lifecycle-controller', '-taint-eviction-controller']) };

const MANAGER = 'svc-testing/controller-manager';
const container = { name: 'c', image: 'busybox' };
const labels = (app: string) => ({ matchLabels: { app } });
const template = (app: string, image = 'busybox') => ({ metadata: { labels: { app } }, spec: { containers: [{ ...container, image }] } });
const isReady = (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const finished = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * The node agent's part for one namespace: binds each new pod to the node its DaemonSet affinity
 * names (else node-1), makes it Running and Ready — or Succeeded, for a Job's — and completes the
 * deletion of pods being deleted. `hold(pod)` keeps a pod Pending and not Ready until `sweep()`
 * is called after the hold is lifted.
 */
function nodeAgent(client: Client, namespace: string, hold: (pod: Pod) => boolean = () => false) {
  const informer = new Informer(client, builtin.pods, { namespace });
  const busy = new Set<string>();
  const handle = async (pod: Pod): Promise<void> => {
    const uid = pod.metadata.uid!;
    if (busy.has(uid)) return;
    busy.add(uid);
    try {
      const name = pod.metadata.name!;
      if (pod.metadata.deletionTimestamp !== undefined) {
        if (!pod.metadata.finalizers?.length) await client.delete(builtin.pods, name, { namespace, gracePeriodSeconds: 0, preconditions: { uid } });
        return;
      }
      if (hold(pod) || finished(pod) || isReady(pod)) return;
      if (!pod.spec.nodeName) await client.bind(name, targetNodeOf(pod) ?? 'node-1', { namespace });
      const fresh = await client.get(builtin.pods, name, { namespace });
      const at = iso(Date.now());
      const job = fresh.metadata.ownerReferences?.some((o) => o.kind === 'Job') ?? false;
      const state = job ? { terminated: { exitCode: 0, startedAt: at, finishedAt: at } } : { running: { startedAt: at } };
      await client.updateStatus(
        builtin.pods,
        {
          ...fresh,
          status: {
            ...fresh.status,
            phase: job ? 'Succeeded' : 'Running',
            conditions: [
              { type: 'PodScheduled', status: 'True', lastTransitionTime: at },
              { type: 'Ready', status: job ? 'False' : 'True', lastTransitionTime: at },
              { type: 'ContainersReady', status: job ? 'False' : 'True', lastTransitionTime: at },
            ],
            containerStatuses: [{ name: 'c', image: fresh.spec.containers[0]!.image!, imageID: '', ready: !job, restartCount: 0, state }],
          },
        },
        { namespace },
      );
    } catch {
      // Gone or changed meanwhile: its next event brings it here again.
    } finally {
      busy.delete(uid);
    }
  };
  const subscription = informer.events$.subscribe((event) => {
    if (event.type === 'added' || event.type === 'updated') void handle(event.object);
  });
  return {
    informer,
    async sweep() {
      for (const pod of informer.store.list()) await handle(pod);
    },
    stop() {
      subscription.unsubscribe();
      informer.stop();
    },
  };
}

/** Sums of the manager's work-queue metrics: keys added, reconciles done, keys waiting. */
async function queueTotals(manager: RunningControllerManager): Promise<{ adds: number; done: number; waiting: number }> {
  const totals = { adds: 0, done: 0, waiting: 0 };
  for (const metric of await manager.metrics.registry.getMetricsAsJSON()) {
    for (const value of metric.values as { value: number; metricName?: string }[]) {
      if (metric.name === 'workqueue_adds_total') totals.adds += value.value;
      else if (metric.name === 'workqueue_depth') totals.waiting += value.value;
      else if (value.metricName === 'workqueue_work_duration_seconds_count') totals.done += value.value;
    }
  }
  return totals;
}

/**
 * Resolves once the cluster is quiet: the manager's caches synced, no key waiting, and neither
 * its work queues nor the store moved over five checks in a row (a requeue or a late write
 * would move one of them).
 */
async function quiet(cluster: TestCluster): Promise<void> {
  const manager = cluster.manager!;
  let last = '';
  let same = 0;
  await eventually(async () => {
    const totals = await queueTotals(manager);
    const now = JSON.stringify({ ...totals, revision: await cluster.store.revision() });
    same = manager.synced() && totals.waiting === 0 && now === last ? same + 1 : 0;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 100));
    return same >= 5;
  }, 'a quiet cluster');
}

describe('the controller manager restarted over workloads at their desired state', () => {
  const NS = 'steady';
  let cluster: TestCluster;
  let agent: ReturnType<typeof nodeAgent>;

  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: WORKLOAD_LOOPS });
    await createNamespace(cluster.client, NS);
    await createNode(cluster.client, 'node-1');
    await createNode(cluster.client, 'node-2');
    agent = nodeAgent(cluster.newClient({ userAgent: 'node-agent' }), NS);
    const c = cluster.client;
    const ns = { namespace: NS };
    await c.create(builtin.replicaSets, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: NS }, spec: { replicas: 3, selector: labels('rs'), template: template('rs') } } as ReplicaSet, ns);
    await c.create(builtin.deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deploy', namespace: NS }, spec: { replicas: 3, selector: labels('deploy'), template: template('deploy') } } as Deployment, ns);
    await c.create(builtin.jobs, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'job', namespace: NS }, spec: { completions: 2, parallelism: 2, template: { ...template('job'), spec: { ...template('job').spec, restartPolicy: 'Never' } } } } as Job, ns);
    await c.create(builtin.daemonSets, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: NS }, spec: { selector: labels('ds'), template: template('ds') } } as DaemonSet, ns);
    await c.create(builtin.statefulSets, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'sts', namespace: NS }, spec: { replicas: 2, serviceName: 'sts', selector: labels('sts'), template: template('sts') } } as StatefulSet, ns);
    await c.create(builtin.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb', namespace: NS }, spec: { minAvailable: 1, selector: labels('rs') } }, ns);
    await c.create(builtin.cronJobs, { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cron', namespace: NS }, spec: { schedule: '*/5 * * * *', suspend: true, jobTemplate: { spec: { template: { ...template('cron'), spec: { ...template('cron').spec, restartPolicy: 'Never' } } } } } }, ns);

    // Every workload at its desired state, as its status says.
    let seen = '';
    await eventually(async () => {
      const [rs, deploy, job, ds, sts, pdb] = await Promise.all([
        c.get(builtin.replicaSets, 'rs', ns),
        c.get(builtin.deployments, 'deploy', ns),
        c.get(builtin.jobs, 'job', ns),
        c.get(builtin.daemonSets, 'ds', ns),
        c.get(builtin.statefulSets, 'sts', ns),
        c.get(builtin.podDisruptionBudgets, 'pdb', ns),
      ]);
      seen = JSON.stringify({ rs: rs.status, deploy: deploy.status, job: job.status, ds: ds.status, sts: sts.status, pdb: pdb.status });
      return (
        rs.status?.readyReplicas === 3 &&
        deploy.status?.availableReplicas === 3 &&
        deploy.status.conditions?.some((x) => x.type === 'Progressing' && x.reason === 'NewReplicaSetAvailable') === true &&
        job.status?.succeeded === 2 &&
        job.status.conditions?.some((x) => x.type === 'Complete' && x.status === 'True') === true &&
        ds.status?.numberReady === 2 &&
        sts.status?.readyReplicas === 2 &&
        pdb.status?.currentHealthy === 3
      );
    }, 'every workload at its desired state').catch((error: Error) => {
      throw new Error(`${error.message}; last seen: ${seen}`);
    });
    await quiet(cluster);
  }, 60_000);

  afterAll(async () => {
    agent?.stop();
    await cluster?.stop();
  });

  it('makes zero writes, and the store does not move', async () => {
    const pods = agent.informer.store.list().filter((p) => !p.metadata.deletionTimestamp);
    // 3 of the ReplicaSet, 3 of the Deployment, 2 finished of the Job, 1 per node, 2 of the StatefulSet.
    expect(pods).toHaveLength(12);
    expect(pods.filter((p) => p.metadata.finalizers?.length)).toEqual([]);

    await cluster.stopControllers();
    const writes = cluster.writes(MANAGER);
    const revision = await cluster.store.revision();
    const manager = await cluster.startControllers(WORKLOAD_LOOPS);
    expect(manager.running).toEqual(expect.arrayContaining(['replicaset-controller', 'deployment-controller', 'job-controller', 'cronjob-controller', 'daemonset-controller', 'statefulset-controller', 'disruption-controller', 'pod-garbage-collector-controller', 'ttl-after-finished-controller']));
    await quiet(cluster);
    const done = (await queueTotals(manager)).done;

    expect(cluster.writes(MANAGER) - writes).toBe(0);
    expect((await cluster.store.revision()) - revision).toBe(0);
    // The zero is not a manager that did nothing: it reconciled every workload again.
    expect(done).toBeGreaterThanOrEqual(7);
  }, 60_000);
});

describe('the controller manager killed in the middle of a rollout and started again', () => {
  const NS = 'rollout';
  const REPLICAS = 10;
  let cluster: TestCluster;
  let agent: ReturnType<typeof nodeAgent>;
  let holdNew = true;
  // Every pod ever created in the namespace, by the pod-template-hash of its ReplicaSet.
  const created = new Map<string, Set<string>>();
  let watch: Informer<Pod>;

  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: WORKLOAD_LOOPS });
    await createNamespace(cluster.client, NS);
    await createNode(cluster.client, 'node-1');
    agent = nodeAgent(cluster.newClient({ userAgent: 'node-agent' }), NS, (pod) => holdNew && pod.spec.containers[0]?.image === 'busybox:2');
    watch = new Informer(cluster.newClient(), builtin.pods, { namespace: NS });
    watch.events$.subscribe((event) => {
      if (event.type !== 'added') return;
      const hash = event.object.metadata.labels?.['pod-template-hash'] ?? '';
      if (!created.has(hash)) created.set(hash, new Set());
      created.get(hash)!.add(event.object.metadata.uid!);
    });
    await watch.waitForSync();
  }, 30_000);

  afterAll(async () => {
    agent?.stop();
    watch?.stop();
    await cluster?.stop();
  });

  const get = () => cluster.client.get(builtin.deployments, 'web', { namespace: NS });
  const sets = async () => (await cluster.client.list(builtin.replicaSets, { namespace: NS })).items;
  const hashOf = (rs: ReplicaSet) => rs.metadata.labels?.['pod-template-hash'] ?? '';

  it('finishes the rollout with no pod more than it needs', async () => {
    await cluster.client.create(
      builtin.deployments,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: NS },
        spec: { replicas: REPLICAS, selector: labels('web'), template: template('web', 'busybox:1'), strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
      } as Deployment,
      { namespace: NS },
    );
    await eventually(async () => (await get()).status?.availableReplicas === REPLICAS, `${REPLICAS} available pods`);
    await quiet(cluster);

    const before = await get();
    await cluster.client.update(builtin.deployments, { ...before, spec: { ...before.spec, template: template('web', 'busybox:2') } }, { namespace: NS });
    // The new pods stay not Ready: the rollout stops where maxSurge and maxUnavailable let it
    // (new ReplicaSet at 3 + 2 = 5 pods, the old at 8), and the manager is stopped there.
    let newHash = '';
    await eventually(async () => {
      const fresh = (await sets()).find((rs) => rs.spec.template.spec.containers[0]?.image === 'busybox:2');
      newHash = fresh ? hashOf(fresh) : '';
      return (created.get(newHash)?.size ?? 0) > 0 && fresh?.status?.replicas === fresh?.spec.replicas && fresh?.spec.replicas === 5;
    }, 'the new ReplicaSet with some of its pods');
    await quiet(cluster);
    await cluster.stopControllers();
    const midway = created.get(newHash)!.size;
    expect(midway).toBeGreaterThan(0);
    expect(midway).toBeLessThan(REPLICAS);

    holdNew = false;
    await cluster.startControllers(WORKLOAD_LOOPS);
    await agent.sweep();
    await eventually(async () => {
      const d = await get();
      return (
        d.status?.updatedReplicas === REPLICAS &&
        d.status.replicas === REPLICAS &&
        d.status.availableReplicas === REPLICAS &&
        d.status.conditions?.some((x) => x.type === 'Progressing' && x.reason === 'NewReplicaSetAvailable') === true
      );
    }, 'the rollout complete');
    await quiet(cluster);

    const all = await sets();
    const oldHash = hashOf(all.find((rs) => rs.spec.template.spec.containers[0]?.image === 'busybox:1')!);
    expect(all.find((rs) => hashOf(rs) === oldHash)?.spec.replicas).toBe(0);
    // Exactly one pod per replica of each template, ever: none made twice across the restart.
    expect(created.get(newHash)?.size).toBe(REPLICAS);
    expect(created.get(oldHash)?.size).toBe(REPLICAS);
    expect([...created.keys()].sort()).toEqual([newHash, oldHash].sort());
    const live = watch.store.list().filter((p) => !p.metadata.deletionTimestamp);
    expect(live.map((p) => p.metadata.labels?.['pod-template-hash'])).toEqual(Array(REPLICAS).fill(newHash));
  }, 90_000);
});
