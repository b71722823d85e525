import type { Node } from '../../src/api/index.js';

/**
 * Zones and their health, as upstream's node lifecycle controller judges them: a zone is the
 * region and zone labels of its nodes; its state says how many of them are not Ready, and that
 * state sets the rate at which its failed nodes get NoExecute taints (so their pods are evicted).
 */

export type ZoneState = 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** Zone labels, svc's first, then the upstream (and deprecated beta) ones a node may carry. */
const REGION_LABELS = ['topology.svc.io/region', 'topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'];
const ZONE_LABELS = ['topology.svc.io/zone', 'topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];

const firstLabel = (node: Node, keys: readonly string[]): string => {
  const labels = node.metadata.labels ?? {};
  for (const key of keys) if (labels[key] !== undefined) return labels[key];
  return '';
};

/** The zone key of a node (upstream's GetZoneKey: region and zone joined by `:\0:`); '' without labels. */
export function zoneOf(node: Node): string {
  const region = firstLabel(node, REGION_LABELS);
  const zone = firstLabel(node, ZONE_LABELS);
  return region === '' && zone === '' ? '' : `${region}:\x00:${zone}`;
}

/** A node counts as ready when its Ready condition is True. */
export const readyStatus = (node: Node): string | undefined => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/**
 * A zone's state from its nodes' Ready statuses: FullDisruption when none is ready (and some is
 * not), PartialDisruption when more than two are not ready and they are at least `unhealthyThreshold`
 * of the zone, Normal otherwise.
 */
export function zoneState(readyCount: number, notReadyCount: number, unhealthyThreshold: number): ZoneState {
  if (readyCount === 0 && notReadyCount > 0) return 'FullDisruption';
  if (notReadyCount > 2 && notReadyCount / (readyCount + notReadyCount) >= unhealthyThreshold) return 'PartialDisruption';
  return 'Normal';
}

export interface EvictionRates {
  /** `--node-eviction-rate`: nodes per second. */
  readonly primary: number;
  /** `--secondary-node-eviction-rate`. */
  readonly secondary: number;
  /** `--large-cluster-size-threshold`. */
  readonly largeClusterThreshold: number;
}

/**
 * Nodes per second a zone may have tainted NoExecute: the primary rate when Normal or fully
 * disrupted (a whole zone down is not a cluster-wide problem), the secondary one when partially
 * disrupted in a zone larger than the large-cluster threshold, none in a smaller one.
 */
export function zoneRate(state: ZoneState, zoneSize: number, rates: EvictionRates): number {
  if (state === 'PartialDisruption') return zoneSize > rates.largeClusterThreshold ? rates.secondary : 0;
  return rates.primary;
}

/** Groups nodes (each its zone, `zoneOf`, and its Ready status, `readyStatus`) by zone with each zone's state. */
export function zoneStates(nodes: readonly { readonly zone: string; readonly ready: string | undefined }[], unhealthyThreshold: number): Map<string, { state: ZoneState; size: number }> {
  const counts = new Map<string, { ready: number; notReady: number }>();
  for (const { zone, ready } of nodes) {
    const count = counts.get(zone) ?? { ready: 0, notReady: 0 };
    if (ready === 'True') count.ready++;
    else count.notReady++;
    counts.set(zone, count);
  }
  const out = new Map<string, { state: ZoneState; size: number }>();
  for (const [zone, { ready, notReady }] of counts) out.set(zone, { state: zoneState(ready, notReady, unhealthyThreshold), size: ready + notReady });
  return out;
}
