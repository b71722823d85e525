import { Observable, type OperatorFunction } from 'rxjs';
import type { Pod } from '../../api/index.js';
import type { PodSourceName, PodUpdate, SourceEvent } from './pod-update.js';
import type { SourcesReadiness } from './sources-ready.js';

/** Structural equality of JSON values (objects compared by their defined keys). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((key) => ra[key] !== undefined);
  const kb = Object.keys(rb).filter((key) => rb[key] !== undefined);
  return ka.length === kb.length && ka.every((key) => sameJson(ra[key], rb[key]));
}

/** Metadata that says something about the pod: not the bookkeeping that changes with every write. */
function meaningfulMetadata(pod: Pod): unknown {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...rest } = pod.metadata;
  return rest;
}

/** What changed between two versions of one pod: UPDATE (spec or metadata), RECONCILE (status only) or nothing. */
function classify(old: Pod, pod: Pod): 'UPDATE' | 'RECONCILE' | undefined {
  if (old === pod) return undefined;
  if (old.metadata.resourceVersion !== undefined && old.metadata.resourceVersion === pod.metadata.resourceVersion) return undefined;
  const { metadata: _om, status: oldStatus, ...oldRest } = old;
  const { metadata: _nm, status, ...rest } = pod;
  if (!sameJson(oldRest, rest) || !sameJson(meaningfulMetadata(old), meaningfulMetadata(pod))) return 'UPDATE';
  return sameJson(oldStatus, status) ? undefined : 'RECONCILE';
}

const uidOf = (pod: Pod): string => pod.metadata.uid ?? '';

/**
 * Merges the events of every source into one stream of {@link PodUpdate}s, keyed by pod UID, like
 * the kubelet's pod config: each source has its own set; a snapshot replaces that set (pods missing
 * from it are REMOVEd first, then new ones ADDed, changed ones UPDATEd, status-only changes sent as
 * RECONCILE); a delta changes one pod. Repeats (a periodic re-read of an unchanged file, a resync)
 * emit nothing. A UID already given by another source is ignored: the first source to claim it
 * owns it until it lets it go. Each source's first snapshot marks it seen in `readiness`.
 *
 * ```
 * file:  S{a,b}------S{a,b'}---S{b'}
 * api:   ---S{}--set(c)--remove(c)
 * out:   A(a)A(b)--A(c)--R(b)A(b')--R(c)--R(a)     (b' has a new UID: the file changed)
 * ```
 */
export function mergePodSources(readiness?: SourcesReadiness): OperatorFunction<SourceEvent, PodUpdate> {
  return (events) =>
    new Observable<PodUpdate>((subscriber) => {
      const sets = new Map<PodSourceName, Map<string, Pod>>();
      const owner = new Map<string, PodSourceName>();
      const setOf = (source: PodSourceName) => {
        let set = sets.get(source);
        if (!set) sets.set(source, (set = new Map()));
        return set;
      };

      // Returns the update for `pod` entering `source`'s set, and records it.
      const put = (source: PodSourceName, set: Map<string, Pod>, pod: Pod): PodUpdate | undefined => {
        const uid = uidOf(pod);
        const claimedBy = owner.get(uid);
        if (claimedBy !== undefined && claimedBy !== source) return undefined;
        const old = set.get(uid);
        set.set(uid, pod);
        owner.set(uid, source);
        if (old === undefined) return { type: 'ADD', source, pod };
        const type = classify(old, pod);
        return type === undefined ? undefined : { type, source, pod };
      };

      const remove = (source: PodSourceName, set: Map<string, Pod>, uid: string, last?: Pod): PodUpdate | undefined => {
        const old = set.get(uid);
        if (old === undefined) return undefined;
        set.delete(uid);
        owner.delete(uid);
        return { type: 'REMOVE', source, pod: last ?? old };
      };

      return events.subscribe({
        next: (event) => {
          const set = setOf(event.source);
          if (event.kind === 'delta') {
            const update = event.op === 'remove' ? remove(event.source, set, uidOf(event.pod), event.pod) : put(event.source, set, event.pod);
            if (update) subscriber.next(update);
            return;
          }
          const next = new Map(event.pods.map((pod) => [uidOf(pod), pod]));
          const removes: PodUpdate[] = [];
          for (const uid of [...set.keys()]) {
            if (next.has(uid)) continue;
            const update = remove(event.source, set, uid);
            if (update) removes.push(update);
          }
          const changes = { ADD: [] as PodUpdate[], UPDATE: [] as PodUpdate[], RECONCILE: [] as PodUpdate[] };
          for (const pod of next.values()) {
            const update = put(event.source, set, pod);
            if (update && update.type !== 'REMOVE') changes[update.type].push(update);
          }
          for (const update of [...removes, ...changes.ADD, ...changes.UPDATE, ...changes.RECONCILE]) subscriber.next(update);
          // Only after its pods are out: whoever acts on readiness (the orphan sweep of the pod
          // workers) must find every pod of the set already known, or it removes them as orphans.
          readiness?.markSeen(event.source);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
