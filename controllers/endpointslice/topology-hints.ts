import { milliValue, type Node, type Service } from '../../src/api/index.js';
import type { DesiredSliceGroup, SliceEndpoint } from '../service-endpoints/index.js';

/**
 * Topology-aware hints, `service.kubernetes.io/topology-mode: Auto` (and the older
 * `service.kubernetes.io/topology-aware-hints: auto`), as upstream's topology cache allocates them:
 * each zone should receive a share of a Service's ready endpoints proportional to its share of the
 * cluster's allocatable CPU. Each ready endpoint is first hinted for its own zone; zones holding
 * more than their share then give endpoints to zones holding fewer. If a zone would end up outside
 * its bounds — at least its share divided by 1.2 (upstream's 20 % overload threshold), rounded up;
 * at most that plus the endpoints no zone needs — no endpoint gets a hint, and the reason is said.
 */

export const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
export const DEPRECATED_TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** Nodes of the control plane carry no workload share (upstream leaves them out). */
const EXCLUDED_NODE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];
const OVERLOAD_THRESHOLD = 0.2;

/** Why hints were not given: upstream's messages. */
export const INSUFFICIENT_NODE_INFO = 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes';
export const ENDPOINTS_MISSING_ZONE = 'One or more endpoints do not have a zone specified';
export const INSUFFICIENT_ENDPOINTS = 'Insufficient number of endpoints';
export const MIN_ALLOCATION_EXCEEDS_OVERLOAD = 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold';
export const ENDPOINT_IN_UNKNOWN_ZONE = 'One or more endpoints are in a zone that has no ready node with allocatable CPU';

/** Whether the Service asks for CPU-proportional hints. */
export function topologyModeAuto(service: Service): boolean {
  const annotations = service.metadata.annotations ?? {};
  const value = annotations[TOPOLOGY_MODE_ANNOTATION] ?? annotations[DEPRECATED_TOPOLOGY_HINTS_ANNOTATION];
  return value === 'Auto' || value === 'auto';
}

/**
 * Each zone's share of the allocatable CPU of the ready, zoned nodes that are not control-plane
 * nodes; undefined (no hints) when a ready node lacks a zone or CPU, or fewer than two zones remain.
 */
export function zoneCpuRatios(nodes: readonly Node[]): Map<string, number> | undefined {
  const byZone = new Map<string, number>();
  let total = 0;
  for (const node of nodes) {
    const labels = node.metadata.labels ?? {};
    if (EXCLUDED_NODE_LABELS.some((label) => label in labels)) continue;
    if (node.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') continue;
    const zone = labels[ZONE_LABEL];
    const cpu = milliValue(node.status?.allocatable?.['cpu'] ?? '0');
    if (!zone || !(cpu > 0)) return undefined;
    byZone.set(zone, (byZone.get(zone) ?? 0) + cpu);
    total += cpu;
  }
  if (byZone.size < 2 || total <= 0) return undefined;
  return new Map([...byZone].map(([zone, cpu]) => [zone, cpu / total]));
}

interface Allocation {
  readonly minimum: number;
  readonly maximum: number;
  readonly desired: number;
}

/** The hints, or why none are given. `endpoints` are one address family's, from every slice group. */
export type HintOutcome = { readonly hints: ReadonlyMap<SliceEndpoint, string> } | { readonly disabled: string };

export function allocateHints(endpoints: readonly SliceEndpoint[], ratios: ReadonlyMap<string, number> | undefined): HintOutcome {
  if (!ratios) return { disabled: INSUFFICIENT_NODE_INFO };
  const ready = endpoints.filter((e) => e.conditions?.ready !== false);
  if (ready.some((e) => !e.zone)) return { disabled: ENDPOINTS_MISSING_ZONE };
  if (ready.some((e) => !ratios.has(e.zone!))) return { disabled: ENDPOINT_IN_UNKNOWN_ZONE };
  const n = ready.length;
  if (ratios.size > n) return { disabled: `${INSUFFICIENT_ENDPOINTS} (${n} endpoints, ${ratios.size} zones)` };
  const partial = new Map<string, { minimum: number; desired: number }>();
  let minTotal = 0;
  for (const [zone, ratio] of ratios) {
    const desired = ratio * n;
    const minimum = Math.ceil(desired / (1 + OVERLOAD_THRESHOLD));
    partial.set(zone, { minimum, desired: Math.max(desired, minimum) });
    minTotal += minimum;
    if (minTotal > n) return { disabled: `${MIN_ALLOCATION_EXCEEDS_OVERLOAD} (${n} endpoints, ${ratios.size} zones)` };
  }
  const allocations = new Map<string, Allocation>([...partial].map(([zone, a]) => [zone, { ...a, maximum: a.minimum + n - minTotal }]));

  // Every ready endpoint for its own zone first.
  const hints = new Map<SliceEndpoint, string>(ready.map((e) => [e, e.zone!]));
  const count = new Map<string, number>([...ratios.keys()].map((zone) => [zone, 0]));
  for (const zone of hints.values()) count.set(zone, count.get(zone)! + 1);
  // Zones above their share give endpoints to zones below theirs, the neediest first.
  const giving = new Map<string, number>();
  const receiving = new Map<string, number>();
  for (const [zone, allocation] of allocations) {
    const diff = allocation.desired - count.get(zone)!;
    if (diff >= 0.5) receiving.set(zone, Math.round(diff));
    else if (diff <= -0.5) giving.set(zone, Math.round(-diff));
  }
  for (const e of ready) {
    if (giving.size === 0 || receiving.size === 0) break;
    const from = e.zone!;
    if (!giving.has(from)) continue;
    const to = [...receiving].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    hints.set(e, to);
    count.set(from, count.get(from)! - 1);
    count.set(to, count.get(to)! + 1);
    for (const [map, zone] of [[giving, from], [receiving, to]] as const) {
      const left = map.get(zone)! - 1;
      if (left === 0) map.delete(zone);
      else map.set(zone, left);
    }
  }
  for (const [zone, allocation] of allocations) {
    const have = count.get(zone)!;
    if (have < allocation.minimum || have > allocation.maximum) return { disabled: `${MIN_ALLOCATION_EXCEEDS_OVERLOAD} (${n} endpoints, ${ratios.size} zones)` };
  }
  return { hints };
}

/** What `applyTopologyHints` did for one address family (for the Events). */
export interface FamilyHints {
  readonly addressType: string;
  readonly outcome: HintOutcome;
}

/**
 * The groups with hints per address family (across its port sets), as `allocateHints` gives them;
 * a family whose hints are disabled gets none (any PreferClose hints are dropped too: Auto wins).
 */
export function applyTopologyHints(groups: readonly DesiredSliceGroup[], ratios: ReadonlyMap<string, number> | undefined): { groups: DesiredSliceGroup[]; families: FamilyHints[] } {
  const families: FamilyHints[] = [];
  const hinted = new Map<SliceEndpoint, string>();
  for (const addressType of [...new Set(groups.map((g) => g.addressType))]) {
    const outcome = allocateHints(groups.filter((g) => g.addressType === addressType).flatMap((g) => g.endpoints), ratios);
    families.push({ addressType, outcome });
    if ('hints' in outcome) for (const [endpoint, zone] of outcome.hints) hinted.set(endpoint, zone);
  }
  const out = groups.map((group) => ({
    ...group,
    endpoints: group.endpoints.map((endpoint) => {
      const { hints: _old, ...rest } = endpoint;
      const zone = hinted.get(endpoint);
      return zone === undefined ? rest : { ...rest, hints: { forZones: [{ name: zone }] } };
    }),
  }));
  return { groups: out, families };
}
