import { canonicalJson, type EndpointSlice } from '../../src/api/index.js';

export type SliceEndpoint = EndpointSlice['endpoints'][number];
export type SlicePort = NonNullable<EndpointSlice['ports']>[number];

/** The writes that take one group's slices (same address type and ports) to the desired endpoints. */
export interface SlicePlan {
  /** New slices, each with its endpoints (at most the maximum each). */
  readonly create: SliceEndpoint[][];
  /** Existing slices to rewrite in place, with their new endpoints. */
  readonly update: { readonly slice: EndpointSlice; readonly endpoints: SliceEndpoint[] }[];
  /** Existing slices left with no endpoint. */
  readonly delete: EndpointSlice[];
  /** Existing slices that stay as they are. */
  readonly keep: EndpointSlice[];
}

/**
 * An endpoint as comparable text: its fields in one fixed order, so two equal endpoints read the
 * same whatever their keys' order (the server's decoder has its own). Built by hand rather than
 * by `canonicalJson`: a sync of a large Service computes it for every endpoint.
 */
export function endpointText(endpoint: SliceEndpoint): string {
  const c = endpoint.conditions;
  const ref = endpoint.targetRef;
  return [
    endpoint.addresses.join(','),
    c === undefined ? '' : `${c.ready}|${c.serving}|${c.terminating}`,
    endpoint.hostname ?? '',
    endpoint.nodeName ?? '',
    endpoint.zone ?? '',
    ref === undefined ? '' : `${ref.kind}|${ref.namespace}|${ref.name}|${ref.uid}`,
    endpoint.hints === undefined ? '' : canonicalJson(endpoint.hints),
    endpoint.deprecatedTopology === undefined ? '' : canonicalJson(endpoint.deprecatedTopology),
  ].join(';');
}

/**
 * The text of an endpoint, kept per endpoint object: those the informer holds are frozen and the
 * same object for as long as their slice version is current, and a loop may hand the same
 * (frozen) desired endpoint to sync after sync while its pod is unchanged, so a sync of a large
 * Service reads each unchanged endpoint's fields once, not once per sync. Callers never change an
 * endpoint they have handed over.
 */
const cachedText = new WeakMap<SliceEndpoint, string>();
function textOf(endpoint: SliceEndpoint): string {
  let text = cachedText.get(endpoint);
  if (text === undefined) cachedText.set(endpoint, (text = endpointText(endpoint)));
  return text;
}

/** An endpoint's identity across writes: its addresses. A pod keeps its IP while its conditions change. */
export const endpointKey = (endpoint: SliceEndpoint): string => (endpoint.addresses.length === 1 ? endpoint.addresses[0]! : [...endpoint.addresses].sort().join(','));

/** The identity of a group of slices: the address type and the ports (sorted by name, then number). */
export function sliceGroupKey(addressType: string, ports: readonly SlicePort[] | undefined): string {
  const sorted = [...(ports ?? [])].sort(comparePorts);
  return `${addressType}|${sorted.map((p) => `${p.name ?? ''}/${p.port ?? ''}/${p.protocol ?? 'TCP'}/${p.appProtocol ?? ''}`).join(',')}`;
}

export const comparePorts = (a: SlicePort, b: SlicePort): number => (a.name ?? '').localeCompare(b.name ?? '') || (a.port ?? 0) - (b.port ?? 0) || (a.protocol ?? '').localeCompare(b.protocol ?? '');

/**
 * Plans the fewest slice writes for one group (upstream's reconcileByPortMapping, with its
 * minimal-churn rules): an endpoint that exists stays in its slice, rewritten only when it
 * changed; a slice is written only when one of its endpoints changed, came or went (or
 * `mustRewrite` says so); a slice left empty is deleted; new endpoints first fill the slices
 * being rewritten anyway, then — if all of them fit — the fullest unchanged slice with room, and
 * only then new slices of up to `max`.
 */
export function planSlices(existing: readonly EndpointSlice[], desired: readonly SliceEndpoint[], max: number, mustRewrite: (slice: EndpointSlice) => boolean = () => false): SlicePlan {
  const wanted = new Map<string, SliceEndpoint>();
  for (const endpoint of desired) wanted.set(endpointKey(endpoint), endpoint);
  const update: { slice: EndpointSlice; endpoints: SliceEndpoint[] }[] = [];
  const remove: EndpointSlice[] = [];
  const keep: EndpointSlice[] = [];
  const overflow: SliceEndpoint[] = [];
  for (const slice of existing) {
    let changed = mustRewrite(slice);
    const kept: SliceEndpoint[] = [];
    for (const endpoint of slice.endpoints ?? []) {
      const key = endpointKey(endpoint);
      const want = wanted.get(key);
      if (want === undefined) {
        changed = true;
        continue;
      }
      wanted.delete(key);
      if (endpoint !== want && textOf(endpoint) !== textOf(want)) changed = true;
      if (kept.length < max) kept.push(want);
      else {
        // The maximum was lowered: what no longer fits moves on with the new endpoints.
        overflow.push(want);
        changed = true;
      }
    }
    if (kept.length === 0) remove.push(slice);
    else if (changed) update.push({ slice, endpoints: kept });
    else keep.push(slice);
  }
  const remaining = [...overflow, ...wanted.values()];
  for (const entry of update) {
    if (remaining.length === 0) break;
    const room = max - entry.endpoints.length;
    if (room > 0) entry.endpoints.push(...remaining.splice(0, room));
  }
  if (remaining.length > 0) {
    let fullest = -1;
    for (let i = 0; i < keep.length; i++) {
      const size = keep[i]!.endpoints?.length ?? 0;
      if (size + remaining.length <= max && (fullest < 0 || size > (keep[fullest]!.endpoints?.length ?? 0))) fullest = i;
    }
    if (fullest >= 0) {
      const [slice] = keep.splice(fullest, 1);
      update.push({ slice: slice!, endpoints: [...(slice!.endpoints ?? []), ...remaining.splice(0)] });
    }
  }
  const create: SliceEndpoint[][] = [];
  while (remaining.length > 0) create.push(remaining.splice(0, max));
  return { create, update, delete: remove, keep };
}
