import { NEVER, Observable, merge, switchMap, take, takeUntil, timer, type SchedulerLike } from 'rxjs';
import {
  toKey,
  toOwnerKey,
  workqueue,
  type BackoffOptions,
  type KeySource,
  type TokenBucketOptions,
  type WorkContext,
  type WorkqueueMetrics,
  type WorkResult,
  type WorkReturn,
} from '../operators/index.js';

/** An owned type: its events, and the kind of the owner (the controller's primary kind) to map them to. */
export interface OwnedSource {
  readonly events: Observable<KeySource>;
  /** The `kind` in the owned objects' controller owner reference (e.g. `ReplicaSet`). */
  readonly kind: string;
}

export interface ControllerOptions<R = undefined> {
  /** Names the controller in results and logs. */
  readonly name: string;
  /** Changes of the primary type (an informer's `events$`): each triggers its object's key. */
  readonly for: Observable<KeySource>;
  /** Changes of owned types: each triggers the key of its controller owner of `kind`. */
  readonly owns?: readonly OwnedSource[];
  /** Any other triggers, already mapped to primary keys (`namespace/name`). */
  readonly watches?: readonly Observable<string>[];
  /**
   * Brings the object of `key` to its desired state. Return nothing (or `awaitChange()`) when
   * done, `requeueAfter(ms)` to look again later; throw to retry with back-off, throw a
   * `TerminalError` to give up on this change.
   */
  readonly reconcile: (key: string, context: WorkContext) => WorkReturn<R>;
  /** Keys reconciled at once (default 1, as client-go). */
  readonly concurrency?: number;
  readonly backoff?: BackoffOptions | false;
  readonly bucket?: TokenBucketOptions | false;
  /**
   * Emits to shut down: triggers stop, reconciles in flight finish (delayed requeues are
   * dropped), then the pipeline completes — or after `drainTimeoutMs`, whichever is first.
   */
  readonly stop$?: Observable<unknown>;
  /** Longest graceful drain after `stop$` (default 30 s). */
  readonly drainTimeoutMs?: number;
  /** Instrumentation of the controller's work queue (the manager's per-controller metrics). */
  readonly metrics?: WorkqueueMetrics;
  readonly scheduler?: SchedulerLike;
}

/** One reconcile's result, with the controller's name. */
export type ControllerResult<R = undefined> = WorkResult<string, R> & { readonly controller: string };

/**
 * A controller as one pipeline: the keys its primary objects, its owned objects (mapped to their
 * owner) and any other triggers name, through a work queue into `reconcile`.
 *
 * ```
 * for:      --a----a------        (events of primary objects a, b)
 * owns:     -----x------          (x is owned by b)
 * keys:     --a--b-a------
 * reconcile   [a][b][a]           never two runs of one key at once; a re-add while it runs → one more run
 * results:  ----A--B--A---
 * ```
 *
 * @example
 * const results = controller({
 *   name: 'configmap-secrets',
 *   for: configMaps.events$,
 *   owns: [{ events: secrets.events$, kind: 'ConfigMap' }],
 *   reconcile: async (key) => { ... },
 * });
 * results.subscribe((r) => r.type === 'terminal' && console.error(r.key, r.error));
 */
export function controller<R = undefined>(options: ControllerOptions<R>): Observable<ControllerResult<R>> {
  const stop$ = options.stop$ ?? NEVER;
  const triggers = merge(
    options.for.pipe(toKey()),
    ...(options.owns ?? []).map((owned) => owned.events.pipe(toOwnerKey(owned.kind))),
    ...(options.watches ?? []),
  ).pipe(takeUntil(stop$));
  const results = triggers.pipe(
    workqueue<string, R>({
      work: options.reconcile,
      concurrency: options.concurrency ?? 1,
      ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
      ...(options.bucket !== undefined ? { bucket: options.bucket } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    }),
  );
  // The drain is bounded: once stop$ has fired, a reconcile still running after the timeout is cut.
  const cut$ = options.stop$ ? stop$.pipe(take(1), switchMap(() => timer(options.drainTimeoutMs ?? 30_000, options.scheduler))) : NEVER;
  const bounded = results.pipe(takeUntil(cut$));
  return new Observable<ControllerResult<R>>((subscriber) =>
    bounded.subscribe({
      next: (result) => subscriber.next({ ...result, controller: options.name }),
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}
