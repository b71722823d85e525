// Objects the storage loop tests make: volumes, claims, classes, nodes.
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';

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
