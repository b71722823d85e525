import { readPodRuntime, type PodRuntime } from './pod-runtime.js';
import type { PodEntry, WorkerContext } from './worker-context.js';

/**
 * The kubelet's pod cache, per pod: the runtime read a sync made is kept on the pod's entry and
 * the next sync starts from it, with no runtime call, until something says the pod's runtime may
 * have changed — the relist saw a change of its sandboxes or containers, the agent itself asked
 * the runtime for one (a sync's start or stop, a probe's kill) — which bumps the entry's epoch.
 * A read is kept only if no bump came while it was in flight, so a change the relist reported
 * during a read is never hidden behind it. The periodic sync of a running pod (every
 * `--sync-frequency`, every pod) thus makes no runtime call at all, as the kubelet's reads its pod
 * cache; it sees a change at the latest when the relist does (a second on containerd 1.6, at once
 * on an evented runtime), and the relist's change syncs the pod anyway.
 */

/** The pod's runtime as last read, if nothing said it changed since. */
export function cachedPodRuntime(entry: PodEntry): PodRuntime | undefined {
  const cached = entry.runtime;
  return cached !== undefined && cached.epoch === (entry.runtimeEpoch ?? 0) ? cached.value : undefined;
}

/** Reads the pod's runtime, and keeps the read unless its runtime was said to change meanwhile. */
export async function readAndCachePodRuntime(context: WorkerContext, entry: PodEntry, uid: string): Promise<PodRuntime> {
  const epoch = entry.runtimeEpoch ?? 0;
  const value = await readPodRuntime(context.cri, uid, context.exited, { signal: context.signal });
  entry.runtime = (entry.runtimeEpoch ?? 0) === epoch ? { epoch, value } : undefined;
  return value;
}

/** The pod's runtime may have changed (or is about to): the read kept is stale. */
export function podRuntimeChanged(entry: PodEntry): void {
  entry.runtimeEpoch = (entry.runtimeEpoch ?? 0) + 1;
  entry.runtime = undefined;
}
