import { asyncScheduler, defer, exhaustMap, from, merge, mergeMap, throttleTime, timer, catchError, EMPTY, type Observable, type SchedulerLike } from 'rxjs';
import type { CriClient } from '../cri/index.js';
import { POD_UID_LABEL } from './runtime-labels.js';

/** Options of {@link relist}. */
export interface RelistOptions {
  readonly cri: CriClient;
  /** Period, ms. Default 1000 (the kubelet's PLEG period). */
  readonly periodMs?: number | undefined;
  /**
   * A signal of the runtime after each change of its sandboxes or containers (the kubelet's
   * evented PLEG, on CRI GetContainerEvents). Given, the runtime is listed on a signal (at most
   * once a period, the last signal of a period never lost) and otherwise only every
   * `fallbackPeriodMs`, instead of every period: an idle node lists nothing.
   */
  readonly changes$?: Observable<unknown> | undefined;
  /** With `changes$`: the relist that runs anyway, ms. Default 300 000 (the kubelet's evented PLEG's). */
  readonly fallbackPeriodMs?: number | undefined;
  readonly scheduler?: SchedulerLike | undefined;
  /** Told about a failed relist (the runtime away); the next period tries again. */
  readonly onError?: ((error: unknown) => void) | undefined;
}

/** What the runtime holds, by pod UID: the sandboxes' and containers' ids and states. */
export type RuntimeFingerprints = ReadonlyMap<string, string>;

/**
 * The kubelet's "pod lifecycle event generator" without events: containerd 1.6 has no
 * GetContainerEvents, so every period the whole runtime is listed (ListPodSandbox +
 * ListContainers, two calls however many pods run) and each pod's sandboxes and containers
 * (id and state) are compared with the previous list. Emits the UID of every pod whose runtime
 * state changed — appeared, changed state, or vanished — and, at the first list, every UID found
 * (what a restarted agent must adopt). `latest()` is the last list's view, for orphan detection.
 */
export function relist(options: RelistOptions): { readonly changes$: Observable<string>; latest(): RuntimeFingerprints | undefined } {
  let previous: Map<string, string> | undefined;
  const list = async (): Promise<string[]> => {
    const [{ items }, { containers }] = await Promise.all([options.cri.listPodSandbox(), options.cri.listContainers()]);
    const parts = new Map<string, string[]>();
    const add = (uid: string | undefined, part: string) => {
      if (!uid) return;
      const list = parts.get(uid);
      if (list) list.push(part);
      else parts.set(uid, [part]);
    };
    for (const sandbox of items) add(sandbox.labels[POD_UID_LABEL], `s:${sandbox.id}:${sandbox.state}`);
    for (const container of containers) add(container.labels[POD_UID_LABEL], `c:${container.id}:${container.state}`);
    const next = new Map<string, string>();
    for (const [uid, list] of parts) next.set(uid, list.sort().join(','));
    const changed: string[] = [];
    for (const [uid, fingerprint] of next) if (previous?.get(uid) !== fingerprint) changed.push(uid);
    if (previous) for (const uid of previous.keys()) if (!next.has(uid)) changed.push(uid);
    previous = next;
    return changed;
  };
  const scheduler = options.scheduler ?? asyncScheduler;
  const periodMs = options.periodMs ?? 1000;
  const ticks$ = options.changes$
    ? merge(timer(0, options.fallbackPeriodMs ?? 300_000, scheduler), options.changes$.pipe(throttleTime(periodMs, scheduler, { leading: true, trailing: true })))
    : timer(0, periodMs, scheduler);
  const changes$ = ticks$.pipe(
    exhaustMap(() =>
      defer(list).pipe(
        catchError((error: unknown) => {
          options.onError?.(error);
          return EMPTY;
        }),
      ),
    ),
    mergeMap((uids) => from(uids)),
  );
  return { changes$, latest: () => previous };
}
