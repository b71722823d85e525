import { podClaims, type Pod } from '../../src/api/index.js';
import { builtin, indexOn, type Informer, type InformerFactory } from '../../src/client/index.js';

/** The pod index of the claims they use, `namespace/claim` (shared by the loops that ask "who uses this claim?"). */
export const CLAIM_INDEX = 'svc.io/claims';

// The spec and the pod's namespace (its key) alone: a status write keeps the pod's entries unread.
const claimKeys = indexOn<Pod>(['spec'], (pod) => podClaims(pod).map((c) => `${pod.metadata.namespace ?? ''}/${c.claimName}`));

/** The shared pod informer, indexed by the claims its pods use. */
export function podsByClaim(informers: InformerFactory): Informer<Pod> {
  return informers.informer(builtin.pods, { indexers: { [CLAIM_INDEX]: claimKeys } });
}

/** The claim keys (`namespace/name`) a pod uses. */
export { claimKeys as podClaimKeys };
