import { DISCOVERY_GROUP, canonicalJson, isStatusError, type EndpointSlice, type OwnerReference } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { planSlices, sliceGroupKey, type SliceEndpoint, type SlicePort } from './slice-plan.js';
import type { SliceTracker } from './slice-tracker.js';

/** The endpoints one group of slices should hold. */
export interface DesiredSliceGroup {
  readonly addressType: 'IPv4' | 'IPv6' | 'FQDN';
  readonly ports: readonly SlicePort[];
  readonly endpoints: readonly SliceEndpoint[];
}

export interface ApplySlicesInput {
  readonly client: Client;
  readonly tracker: SliceTracker;
  readonly namespace: string;
  /** The owner (a Service) every slice is controlled by. */
  readonly owner: OwnerReference;
  /** New slices are named `<prefix><random>`. */
  readonly namePrefix: string;
  /** The owner's slices this loop manages, as the tracker knows them. */
  readonly existing: readonly EndpointSlice[];
  readonly desired: readonly DesiredSliceGroup[];
  /** The labels (and annotations) every slice must carry exactly. */
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly maxPerSlice: number;
  /** With no endpoint at all, keep one empty slice of this address type (upstream's placeholder), or none. */
  readonly placeholder?: 'IPv4' | 'IPv6' | undefined;
  /**
   * How many writes of one phase (creates, updates, deletions) are in flight at once: 1 (the
   * default) sends them one after another, `Infinity` the whole phase at once. A sync that
   * rewrites 50 slices one after another waits for 50 round trips, each queued behind the API
   * server's other work; more in flight waits for about one, but a faster sync means more syncs,
   * each rewriting the slices its flips touched (docs/benchmarks.md, issue #24).
   */
  readonly writesInFlight?: number | undefined;
  /**
   * Each planned endpoint as the caches show it at the moment its slice's write is sent (the
   * conditions of a pod that flipped since the desired slices were computed), or the planned one.
   * Only what does not move an endpoint may change (its conditions): the plan's minimal churn —
   * which slices change, where each endpoint sits — stands. Without it a flip that arrives while
   * a sync's writes go out waits for the next sync; with it, one still to be written carries it
   * (docs/benchmarks.md, issue #24).
   */
  readonly current?: ((endpoint: SliceEndpoint) => SliceEndpoint) | undefined;
  /** Called with each slice as the server answered its create or update (the bench times each write). */
  readonly onWritten?: ((slice: EndpointSlice) => void) | undefined;
}

/** The writes made. */
export interface SliceWrites {
  created: number;
  updated: number;
  deleted: number;
}

interface Rewrite {
  readonly slice: EndpointSlice;
  readonly ports: readonly SlicePort[];
  readonly endpoints: readonly SliceEndpoint[];
}

/**
 * Takes an owner's slices to the desired groups with the fewest writes: each group planned by
 * `planSlices`, the slices of groups no longer wanted deleted — except that a slice to delete and
 * a slice to create of one address type become one update of the old slice (one write, not two,
 * and readers see no gap). Creates go first, then updates, then deletions, so an endpoint moving
 * between slices is never missing from all of them.
 */
export async function applySlices(input: ApplySlicesInput): Promise<SliceWrites> {
  const { existing, labels, maxPerSlice } = input;
  const annotations = input.annotations ?? {};
  const stale = (slice: EndpointSlice): boolean => !sameMap(slice.metadata.labels, labels) || !sameMap(slice.metadata.annotations, annotations) || !ownedBy(slice, input.owner);
  const groups = new Map<string, EndpointSlice[]>();
  for (const slice of existing) {
    const key = sliceGroupKey(slice.addressType, slice.ports);
    const list = groups.get(key);
    if (list) list.push(slice);
    else groups.set(key, [slice]);
  }
  const creates: { addressType: DesiredSliceGroup['addressType']; ports: readonly SlicePort[]; endpoints: SliceEndpoint[] }[] = [];
  const updates: Rewrite[] = [];
  const deletes: EndpointSlice[] = [];
  const total = input.desired.reduce((n, group) => n + group.endpoints.length, 0);
  for (const group of input.desired) {
    if (group.endpoints.length === 0) continue;
    const key = sliceGroupKey(group.addressType, group.ports);
    const plan = planSlices(groups.get(key) ?? [], group.endpoints, maxPerSlice, stale);
    groups.delete(key);
    for (const endpoints of plan.create) creates.push({ addressType: group.addressType, ports: group.ports, endpoints });
    for (const { slice, endpoints } of plan.update) updates.push({ slice, ports: group.ports, endpoints });
    deletes.push(...plan.delete);
  }
  for (const rest of groups.values()) deletes.push(...rest);

  if (total === 0 && input.placeholder !== undefined) {
    // One empty slice stays, so a reader sees the Service has been processed and has no endpoints.
    const isPlaceholder = (slice: EndpointSlice): boolean => slice.addressType === input.placeholder && (slice.endpoints?.length ?? 0) === 0 && (slice.ports?.length ?? 0) === 0;
    let at = deletes.findIndex(isPlaceholder);
    if (at < 0) at = deletes.findIndex((slice) => slice.addressType === input.placeholder);
    const found = at >= 0 ? deletes.splice(at, 1)[0] : undefined;
    if (found === undefined) creates.push({ addressType: input.placeholder, ports: [], endpoints: [] });
    else if (!isPlaceholder(found) || stale(found)) updates.push({ slice: found, ports: [], endpoints: [] });
  }

  // A deletion and a creation of one address type are one update.
  for (let i = 0; i < creates.length; ) {
    const create = creates[i]!;
    const at = deletes.findIndex((slice) => slice.addressType === create.addressType);
    if (at < 0) {
      i++;
      continue;
    }
    const [slice] = deletes.splice(at, 1);
    updates.push({ slice: slice!, ports: create.ports, endpoints: create.endpoints });
    creates.splice(i, 1);
  }

  // Each sync rewrites a busy Service's slices in one order (by name), so a slice's writes come
  // about one sync apart: a flip that just missed its slice's write is in the next one.
  updates.sort((a, b) => (a.slice.metadata.name! < b.slice.metadata.name! ? -1 : a.slice.metadata.name! > b.slice.metadata.name! ? 1 : 0));
  const current = input.current;
  const now = (endpoints: readonly SliceEndpoint[]): SliceEndpoint[] => (current === undefined ? [...endpoints] : endpoints.map(current));

  const writes: SliceWrites = { created: 0, updated: 0, deleted: 0 };
  const { client, tracker, namespace, owner } = input;
  // The phases stay in order; within one, `writesInFlight` writes go at once. After a failure no
  // further write of the phase starts (those in flight finish), and the first failure is thrown.
  const width = Math.max(1, input.writesInFlight ?? 1);
  const phase = async <T>(items: readonly T[], write: (item: T) => Promise<void>): Promise<void> => {
    let next = 0;
    let failure: { error: unknown } | undefined;
    await Promise.all(
      Array.from({ length: Math.min(width, items.length) }, async () => {
        while (next < items.length && failure === undefined) {
          try {
            await write(items[next++]!);
          } catch (error) {
            failure ??= { error };
          }
        }
      }),
    );
    if (failure !== undefined) throw failure.error;
  };
  try {
    await phase(creates, async (create) => {
      const slice: EndpointSlice = {
        apiVersion: `${DISCOVERY_GROUP}/v1`,
        kind: 'EndpointSlice',
        metadata: { generateName: input.namePrefix, namespace, labels: { ...labels }, ...(Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}), ownerReferences: [owner] },
        addressType: create.addressType,
        endpoints: now(create.endpoints),
        ports: [...create.ports],
      };
      const created = await client.create(builtin.endpointSlices, slice, { namespace });
      tracker.wrote(created);
      input.onWritten?.(created);
      writes.created++;
    });
    await phase(updates, async (update) => {
      const metadata = { ...update.slice.metadata, labels: { ...labels }, ownerReferences: [owner] };
      if (Object.keys(annotations).length > 0) metadata.annotations = { ...annotations };
      else delete metadata.annotations;
      const slice: EndpointSlice = { ...update.slice, metadata, endpoints: now(update.endpoints), ports: [...update.ports] };
      const updated = await client.update(builtin.endpointSlices, slice, { namespace });
      tracker.wrote(updated);
      input.onWritten?.(updated);
      writes.updated++;
    });
    await phase(deletes, async (slice) => {
      try {
        await client.delete(builtin.endpointSlices, slice.metadata.name!, { namespace, preconditions: { uid: slice.metadata.uid! } });
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
      tracker.deleted(slice);
      writes.deleted++;
    });
  } catch (error) {
    // What the loop wrote may no longer be the truth (a conflict, a slice deleted by someone else): start again from the informer.
    tracker.forget(owner.uid);
    throw error;
  }
  return writes;
}

function ownedBy(slice: EndpointSlice, owner: OwnerReference): boolean {
  const refs = slice.metadata.ownerReferences ?? [];
  return refs.length === 1 && canonicalJson(refs[0]) === canonicalJson(owner);
}

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  for (const key of ak) if (a![key] !== b?.[key]) return false;
  return true;
}
