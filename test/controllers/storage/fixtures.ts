// Objects the storage loop tests make: volumes, claims, classes, nodes.
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import type { RunningControllerManager } from '../../../controllers/index.js';
import type { TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../support.js';

export const NS = 'default';

export function volume(name: string, size: string, extra: Partial<PersistentVolume['spec']> = {}, labels?: Record<string, string>): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/static-${name}` }, ...extra },
  };
}

export function claim(name: string, size: string, extra: Partial<PersistentVolumeClaim['spec']> = {}, annotations?: Record<string, string>): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...extra },
  };
}

export function storageClass(name: string, extra: Partial<StorageClass> = {}): StorageClass {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'svc.io/host-path', ...extra };
}

export function node(name: string): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'svc.io/hostname': name } }, spec: {} } as Node;
}

export const getClaim = (client: Client, name: string) => client.get(builtin.persistentVolumeClaims, name, { namespace: NS });
export const getVolume = (client: Client, name: string) => client.get(builtin.persistentVolumes, name);

/** The reasons of the Events about one object, in the order they were recorded. */
export async function eventReasons(client: Client, name: string, kind: string, namespace = NS): Promise<string[]> {
  const events = await client.list(builtin.coreEvents, { namespace: kind === 'PersistentVolume' ? 'default' : namespace });
  return events.items.filter((e) => e.involvedObject?.name === name && e.involvedObject?.kind === kind).map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`);
}

/** The manager's work-queue totals, from its metrics. */
export async function queueTotals(manager: RunningControllerManager): Promise<{ adds: number; done: number; waiting: number }> {
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

/** Resolves once the manager's caches synced, no key waits, and neither its queues nor the store moved over five checks in a row. */
export async function quiet(cluster: TestCluster): Promise<void> {
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
