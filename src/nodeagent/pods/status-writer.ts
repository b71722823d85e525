import { createHash } from 'node:crypto';
import { isStatusError, type Pod, type PodStatus } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';
import { isCurrentMirrorOf } from '../mirror/index.js';
import { canonicalJson, isStaticPod } from '../sources/index.js';

/** The status fields the agent owns; a merge patch sets each (null removes one it no longer reports). */
const OWNED = ['phase', 'reason', 'message', 'conditions', 'hostIP', 'hostIPs', 'podIP', 'podIPs', 'startTime', 'qosClass', 'initContainerStatuses', 'containerStatuses'] as const;

/** Conditions others own (readiness gates, …) are kept; these are the agent's (DisruptionTarget: its evictions). */
const OWN_CONDITIONS = new Set(['PodScheduled', 'Initialized', 'ContainersReady', 'Ready', 'DisruptionTarget']);

const owned = (status: PodStatus | undefined): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const key of OWNED) {
    const value = status?.[key];
    out[key] = key === 'conditions' && Array.isArray(value) ? (value as { type: string }[]).filter((c) => OWN_CONDITIONS.has(c.type)) : (value ?? null);
  }
  return out;
};

/**
 * The owned part of a status, canonical, as a SHA-256 digest: what decides whether a write is
 * needed. The writer keeps one per pod for as long as the pod runs, so it keeps the digest (44
 * characters) rather than the canonical JSON itself (~1 KB for a one-container pod: at 150,000
 * pods on hollow nodes, 150 MB of strings nobody read again but to compare).
 */
export const statusFingerprint = (status: PodStatus | undefined): string => createHash('sha256').update(canonicalJson(owned(status))).digest('base64');

/**
 * Writes pod statuses to the API server: only when the owned fields differ from the last written
 * (or from what the API server shows, after a RECONCILE), as a merge patch of `pods/<name>/status`.
 * Writes of one pod are ordered by the worker (never two syncs at once), so a status is never
 * older than the last written. A static pod's status goes to its mirror pod, when a current one
 * exists (else the next sync tries again).
 */
export class StatusWriter {
  readonly #client: Client;
  readonly #written = new Map<string, string>();

  /** The answer (the whole pod) is not read: a view in the encoding the client speaks, so nothing of it is decoded. */
  readonly #answers: 'protobuf' | 'lazy';

  constructor(client: Client) {
    this.#client = client;
    this.#answers = client.transport.codec.mediaType.includes('protobuf') ? 'protobuf' : 'lazy';
  }

  /**
   * Writes `status` for `pod` if needed. `apiStatus`: the status the API server last showed (a
   * RECONCILE), which forces a write when someone else changed the owned fields.
   */
  async write(pod: Pod, status: PodStatus, apiStatus?: PodStatus): Promise<boolean> {
    const uid = pod.metadata.uid ?? '';
    const fingerprint = statusFingerprint(status);
    const stale = apiStatus !== undefined && statusFingerprint(apiStatus) !== fingerprint;
    if (this.#written.get(uid) === fingerprint && !stale) return false;
    const target = isStaticPod(pod) ? await this.#mirrorOf(pod) : pod;
    if (!target) return false;
    try {
      await this.#client.patchStatus(builtin.pods, target.metadata.name ?? '', { status: owned(status) }, { namespace: target.metadata.namespace ?? 'default', decode: this.#answers });
    } catch (error) {
      // The pod is gone (deleted for good): nothing to report to.
      if (isStatusError(error, 'NotFound')) return false;
      throw error;
    }
    this.#written.set(uid, fingerprint);
    return true;
  }

  /**
   * Is `status` (what the API server shows) the one this writer last wrote for the pod? Then a
   * RECONCILE carrying it is the echo of that write, and there is nothing to reconcile.
   */
  wrote(uid: string, status: PodStatus | undefined): boolean {
    const written = this.#written.get(uid);
    return written !== undefined && written === statusFingerprint(status);
  }

  forget(uid: string): void {
    this.#written.delete(uid);
  }

  async #mirrorOf(staticPod: Pod): Promise<Pod | undefined> {
    try {
      const mirror = await this.#client.get(builtin.pods, staticPod.metadata.name ?? '', { namespace: staticPod.metadata.namespace ?? 'default' });
      return isCurrentMirrorOf(mirror, staticPod) ? mirror : undefined;
    } catch (error) {
      if (isStatusError(error, 'NotFound')) return undefined;
      throw error;
    }
  }
}
