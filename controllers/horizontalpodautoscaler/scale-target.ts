import { resource, type DiscoveryCache, type Resource } from '../../src/client/index.js';

/**
 * The resource behind an autoscaler's `scaleTargetRef` (`apiVersion` + `kind`), found in the
 * term's shared discovery (`ctx.discovery`: every served version, preferred or not, each type
 * with its subresources) as upstream's REST mapper finds it, so that any kind with a `scale`
 * subresource works (Deployments, ReplicaSets, StatefulSets, ReplicationControllers, custom
 * resources that declare one, at any served version) and a kind without one is named as such.
 * A kind not found is looked for again in a fresh read (`DiscoveryCache.typeAtVersion`), so a CRD
 * whose routes came up after the cache's last read is found at the next sync, not in 30 s.
 */

export interface ScaleTarget {
  readonly resource: Resource;
  readonly kind: string;
}

/** Why a target cannot be scaled: the message goes into AbleToScale=False. */
export class ScaleTargetError extends Error {}

/** The target's resource; rejects with a ScaleTargetError when it has none or cannot scale, with the list's error when discovery could not read it. */
export async function resolveScaleTarget(discovery: DiscoveryCache, apiVersion: string | undefined, kind: string): Promise<ScaleTarget> {
  const exact = apiVersion || 'v1';
  const found = await discovery.typeAtVersion(exact, kind);
  const slash = exact.indexOf('/');
  const group = slash < 0 ? '' : exact.slice(0, slash);
  if (!found.served) throw new ScaleTargetError(`no matches for kind ${JSON.stringify(kind)} in group ${JSON.stringify(group)}: ${exact} is not served`);
  // The list failed this time (the server away): not an answer, the sync is tried again.
  if (found.error !== undefined) throw found.error;
  const type = found.type;
  if (type === undefined) throw new ScaleTargetError(`no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(exact)}`);
  if (!type.subresources?.includes('scale')) {
    throw new ScaleTargetError(`${kind} (${group ? `${type.resource}.${group}` : type.resource}) has no scale subresource: it cannot be autoscaled`);
  }
  return { kind, resource: resource({ group, version: type.version, resource: type.resource, namespaced: type.namespaced, kind }) };
}
