import type { Node, Pod, Service } from '../../src/api/index.js';
import { endpointKey, type SliceEndpoint } from '../service-endpoints/index.js';
import { ZONE_LABEL, type EndpointCache } from './desired-endpoints.js';

/**
 * `applySlices`' `current` for a sync of `service`: a planned endpoint with its pod's conditions
 * as the pod cache shows them when the slice's write is sent. Only for the same pod (name and
 * uid), still selected, with the same address, node, zone and hostname — only the conditions may
 * differ, so the endpoint stays where the plan put it; a hinted endpoint keeps its hints. Anything
 * else (the pod gone, replaced, moved, re-addressed) is the next sync's: the planned endpoint is
 * written as planned.
 */
export function conditionsAtWrite(
  service: Service,
  podOf: (name: string) => Pod | undefined,
  nodeOf: (name: string) => Node | undefined,
  cache: EndpointCache,
): (planned: SliceEndpoint) => SliceEndpoint {
  const zoneOf = (nodeName: string) => nodeOf(nodeName)?.metadata.labels?.[ZONE_LABEL];
  return (planned) => {
    const ref = planned.targetRef;
    if (ref?.kind !== 'Pod' || ref.name === undefined) return planned;
    const pod = podOf(ref.name);
    if (pod === undefined || pod.metadata.uid !== ref.uid) return planned;
    const key = endpointKey(planned);
    const now = cache.endpointsOf(service, pod, zoneOf)?.byFamily.find((entry) => entry !== undefined && endpointKey(entry.endpoint) === key)?.endpoint;
    if (now === undefined || now.conditions === planned.conditions || sameConditions(now.conditions, planned.conditions)) return planned;
    if (now.hostname !== planned.hostname || now.nodeName !== planned.nodeName || now.zone !== planned.zone) return planned;
    if (planned.hints === undefined && planned.deprecatedTopology === undefined) return now;
    // A hinted endpoint is the plan's own copy (a plain object): its hints stay.
    return Object.getPrototypeOf(planned) === Object.prototype ? Object.freeze({ ...planned, conditions: now.conditions }) : planned;
  };
}

const sameConditions = (a: SliceEndpoint['conditions'], b: SliceEndpoint['conditions']): boolean =>
  a?.ready === b?.ready && a?.serving === b?.serving && a?.terminating === b?.terminating;
