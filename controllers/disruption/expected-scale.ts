import { isStatusError, type Deployment, type KubeObject, type OwnerReference, type Pod, type ReplicaSet, type ReplicationController, type StatefulSet } from '../../src/api/index.js';
import { builtin, type Client, type DiscoveryCache, type Informer, type InformerFactory } from '../../src/client/index.js';
import { controllerOf, groupOfApiVersion } from '../controller-ref.js';

/** The caches the scale of the known workload kinds is read from. */
export interface ScaleSources {
  readonly replicationControllers: Informer<ReplicationController>;
  readonly replicaSets: Informer<ReplicaSet>;
  readonly deployments: Informer<Deployment>;
  readonly statefulSets: Informer<StatefulSet>;
  /** Where any other kind's resource is found (the term's shared discovery). */
  readonly discovery: DiscoveryCache;
}

/** The scale of one controller: its uid (a Deployment's for the pods of its ReplicaSets) and `spec.replicas`. */
interface ControllerScale {
  readonly uid: string;
  readonly replicas: number;
}

/** A pod's controller that could not be found (gone, another uid, or a kind without a scale). */
export class NoControllerError extends Error {}

/**
 * The number of pods the budget's pods' controllers want (upstream's getExpectedScale): each
 * controller once, by the scale its kind keeps — a ReplicationController's, a ReplicaSet's (its
 * Deployment's, when a Deployment controls it), a StatefulSet's, or any other kind's `scale`
 * subresource, found through discovery. Pods without a controller are not counted (upstream
 * warns about them). A controller that cannot be found fails the whole computation.
 */
export async function expectedScale(client: Client, sources: ScaleSources, pods: readonly Pod[]): Promise<{ expected: number; unmanaged: number }> {
  const seen = new Set<string>();
  let expected = 0;
  let unmanaged = 0;
  for (const pod of pods) {
    const reference = controllerOf(pod);
    if (reference === undefined) {
      unmanaged += 1;
      continue;
    }
    if (seen.has(reference.uid)) continue;
    seen.add(reference.uid);
    const scale = await controllerScale(client, sources, pod.metadata.namespace!, reference);
    if (scale === undefined) throw new NoControllerError(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`);
    // Two ReplicaSets of one Deployment stand for that Deployment once.
    if (scale.uid !== reference.uid) {
      if (seen.has(`scale:${scale.uid}`)) continue;
      seen.add(`scale:${scale.uid}`);
    }
    expected += scale.replicas;
  }
  return { expected, unmanaged };
}

async function controllerScale(client: Client, sources: ScaleSources, namespace: string, reference: OwnerReference): Promise<ControllerScale | undefined> {
  const group = groupOfApiVersion(reference.apiVersion);
  const key = `${namespace}/${reference.name}`;
  const same = <T extends KubeObject>(object: T | undefined): T | undefined => (object?.metadata.uid === reference.uid ? object : undefined);
  if (group === '' && reference.kind === 'ReplicationController') {
    const rc = same(sources.replicationControllers.store.get(key));
    return rc && { uid: reference.uid, replicas: rc.spec?.replicas ?? 1 };
  }
  if (group === 'apps' && reference.kind === 'ReplicaSet') {
    const rs = same(sources.replicaSets.store.get(key));
    if (rs === undefined) return undefined;
    const owner = controllerOf(rs);
    if (owner && owner.kind === 'Deployment' && groupOfApiVersion(owner.apiVersion) === 'apps') {
      const deployment = sources.deployments.store.get(`${namespace}/${owner.name}`);
      if (deployment?.metadata.uid === owner.uid) return { uid: owner.uid, replicas: deployment.spec.replicas ?? 1 };
    }
    return { uid: reference.uid, replicas: rs.spec.replicas ?? 1 };
  }
  if (group === 'apps' && reference.kind === 'StatefulSet') {
    const set = same(sources.statefulSets.store.get(key));
    return set && { uid: reference.uid, replicas: set.spec.replicas ?? 1 };
  }
  return scaleSubresource(client, sources.discovery, namespace, reference);
}

/** Any other kind: its `scale` subresource, the resource found by discovery. */
async function scaleSubresource(client: Client, discovery: DiscoveryCache, namespace: string, reference: OwnerReference): Promise<ControllerScale | undefined> {
  // Any served version, preferred or not; a kind served since the cache's last read is found by
  // the fresh read a miss makes.
  const found = await discovery.typeAtVersion(reference.apiVersion, reference.kind);
  const type = found.served ? found.type : undefined;
  if (type === undefined) return undefined;
  try {
    const scale = await client.getScale(type, reference.name, { namespace });
    if (scale.metadata.uid !== undefined && scale.metadata.uid !== reference.uid) return undefined;
    const replicas = (scale as { spec?: { replicas?: number } }).spec?.replicas ?? 0;
    return { uid: reference.uid, replicas };
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** The workload caches, from the loop's shared informers. */
export const workloadScaleSources = (informers: InformerFactory, discovery: DiscoveryCache): ScaleSources => ({
  replicationControllers: informers.informer(builtin.replicationControllers),
  replicaSets: informers.informer(builtin.replicaSets),
  deployments: informers.informer(builtin.deployments),
  statefulSets: informers.informer(builtin.statefulSets),
  discovery,
});
