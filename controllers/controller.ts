import { NEVER, Observable, combineLatest, defer, isObservable, map, merge, switchMap, take, takeUntil, tap, timer, type OperatorFunction, type SchedulerLike } from 'rxjs';
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

/**
 * A trigger the controller can wait for: its events and whether the cache behind them has synced.
 * An `Informer` is one as it is; so is `{ events$: informer.events$.pipe(...), synced$: informer.synced$ }`.
 */
export interface SyncedSource<T> {
  readonly events$: Observable<T>;
  /** `true` once the cache is filled (an informer's first list); the controller waits for it. */
  readonly synced$: Observable<boolean>;
}

/**
 * What triggers a controller: an informer (or any `SyncedSource`), whose cache the controller
 * waits for before its first reconcile, or a plain Observable, which it cannot wait for.
 */
export type Source<T> = Observable<T> | SyncedSource<T>;

/** What a reconcile is handed beside its key. */
export interface ReconcileContext extends WorkContext {
  /**
   * Whether the caches of every informer the controller was given (`for`, `owns`, `watches`) have
   * synced. Reconciles start only once they have, so this is true in a reconcile unless a source
   * reports otherwise later; plain Observables count as synced.
   */
  synced(): boolean;
}

/**
 * An owned type: its events, and the group and kind of the owner (the controller's primary type)
 * to map them to. Both are compared with the controller owner reference (its `apiVersion`'s group
 * and its `kind`): a kind name alone is not unique across groups.
 */
export interface OwnedSource {
  /** The owned type's informer (waited for), or its events. */
  readonly events: Source<KeySource>;
  /** The API group of the owner, as in its owner reference's `apiVersion` (`'apps'`; `''` for core). */
  readonly group: string;
  /** The `kind` in the owned objects' controller owner reference (e.g. `ReplicaSet`). */
  readonly kind: string;
}

/**
 * A reconcile starting, with the trigger that made its key due: what `onReconcileStart` is told.
 * The trigger is the first since the key's last start — later ones coalesce into the same run,
 * as in the work queue — so `startedAt - triggeredAt` is the longest any of them waited.
 */
export interface ReconcileStart {
  /** The controller's name. */
  readonly controller: string;
  readonly key: string;
  /**
   * What made the key due: the event of a `for` or `owns` source (an informer's `{ type, old,
   * object }`, or the object a plain Observable emitted), or the key a `watches` source emitted.
   * Absent when nothing did since the last start: a retry, a `requeueAfter`.
   */
  readonly trigger?: unknown;
  /** When the trigger reached the controller (ms: the scheduler's clock if one was given, else `performance.now()`); absent with `trigger`. */
  readonly triggeredAt?: number;
  /** When the reconcile started (ms, the same clock). */
  readonly startedAt: number;
}

export interface ControllerOptions<R = undefined> {
  /** Names the controller in results and logs. */
  readonly name: string;
  /** The primary type's informer (waited for), or its events: each change triggers its object's key. */
  readonly for: Source<KeySource>;
  /** Changes of owned types: each triggers the key of its controller owner of `kind`. */
  readonly owns?: readonly OwnedSource[];
  /** Any other triggers, already mapped to primary keys (`namespace/name`); a `SyncedSource` is waited for. */
  readonly watches?: readonly Source<string>[];
  /**
   * Brings the object of `key` to its desired state. Return nothing (or `awaitChange()`) when
   * done, `requeueAfter(ms)` to look again later; throw to retry with back-off, throw a
   * `TerminalError` to give up on this change. Runs only once the informers given have synced.
   */
  readonly reconcile: (key: string, context: ReconcileContext) => WorkReturn<R>;
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
  /**
   * Called as each reconcile starts, with the trigger that made its key due and when it came (the
   * runtime's event → reconcile start metrics). Called synchronously on the controller's path: it
   * must be cheap. Without it the controller keeps no record of triggers.
   */
  readonly onReconcileStart?: (start: ReconcileStart) => void;
  readonly scheduler?: SchedulerLike;
}

/** One reconcile's result, with the controller's name. */
export type ControllerResult<R = undefined> = WorkResult<string, R> & { readonly controller: string };

/**
 * A controller as one pipeline: the keys its primary objects, its owned objects (mapped to their
 * owner) and any other triggers name, through a work queue into `reconcile`. Keys wait (coalesced)
 * until every informer given as a source has synced: a reconcile that read a cache still empty
 * would create what exists already (controller-runtime's WaitForCacheSync).
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
 *   for: configMaps,                                  // informers: waited for
 *   owns: [{ events: secrets, group: '', kind: 'ConfigMap' }],
 *   reconcile: async (key) => { ... },
 * });
 * results.subscribe((r) => r.type === 'terminal' && console.error(r.key, r.error));
 */
export function controller<R = undefined>(options: ControllerOptions<R>): Observable<ControllerResult<R>> {
  const stop$ = options.stop$ ?? NEVER;
  const sources: Source<unknown>[] = [options.for, ...(options.owns ?? []).map((owned) => owned.events), ...(options.watches ?? [])];
  const waitFor = sources.flatMap((source) => (isSyncedSource(source) ? [source.synced$] : []));
  // Each key's first trigger since its last start, kept only for onReconcileStart. The key
  // operators are synchronous: the event being mapped is the one whose key comes out.
  const buildTriggers = (due?: Map<string, { trigger: unknown; at: number }>, now?: () => number): Observable<string> => {
    const traced = <E>(events: Observable<E>, toKeys: OperatorFunction<E, string>): Observable<string> => {
      if (due === undefined || now === undefined) return events.pipe(toKeys);
      let current: E | undefined;
      return events.pipe(
        tap((event) => (current = event)),
        toKeys,
        tap((key) => {
          if (!due.has(key)) due.set(key, { trigger: current, at: now() });
        }),
      );
    };
    return merge(
      traced(eventsOf(options.for), toKey()),
      ...(options.owns ?? []).map((owned) => traced(eventsOf(owned.events), toOwnerKey(owned.kind, owned.group))),
      ...(options.watches ?? []).map((source) => traced(eventsOf(source), (keys) => keys)),
    ).pipe(takeUntil(stop$));
  };
  const onStart = options.onReconcileStart;
  // The drain is bounded: once stop$ has fired, a reconcile still running after the timeout is cut.
  const cut$ = options.stop$ ? stop$.pipe(take(1), switchMap(() => timer(options.drainTimeoutMs ?? 30_000, options.scheduler))) : NEVER;
  // Each subscription is a run of its own, with its own gate.
  return defer(() => {
    const gate = new SyncGate(waitFor);
    const synced = (): boolean => gate.synced;
    // Sub-millisecond unless a scheduler is given (virtual time in tests): Date.now() would round.
    const scheduler = options.scheduler;
    const now = scheduler === undefined ? (): number => performance.now() : (): number => scheduler.now();
    const due = onStart === undefined ? undefined : new Map<string, { trigger: unknown; at: number }>();
    const started = (key: string): void => {
      const first = due!.get(key);
      due!.delete(key);
      onStart!({ controller: options.name, key, ...(first === undefined ? {} : { trigger: first.trigger, triggeredAt: first.at }), startedAt: now() });
    };
    return gate.hold(buildTriggers(due, now)).pipe(
      workqueue<string, R>({
        work: (key, context) => {
          if (due !== undefined) started(key);
          return options.reconcile(key, { ...context, synced });
        },
        concurrency: options.concurrency ?? 1,
        ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
        ...(options.bucket !== undefined ? { bucket: options.bucket } : {}),
        ...(options.scheduler ? { scheduler: options.scheduler } : {}),
        ...(options.metrics ? { metrics: options.metrics } : {}),
      }),
      takeUntil(cut$),
      map((result): ControllerResult<R> => ({ ...result, controller: options.name })),
    );
  });
}

const isSyncedSource = <T>(source: Source<T>): source is SyncedSource<T> => !isObservable(source) && 'events$' in source;
const eventsOf = <T>(source: Source<T>): Observable<T> => (isSyncedSource(source) ? source.events$ : source);

/**
 * Holds keys until every `synced$` has said true, then lets them through (each held key once, in
 * the order first seen) and everything after at once. Subscribing the keys starts the informers;
 * the gate only listens to their `synced$`.
 */
class SyncGate {
  #synced: boolean;
  constructor(private readonly waitFor: readonly Observable<boolean>[]) {
    this.#synced = waitFor.length === 0;
  }

  get synced(): boolean {
    return this.#synced;
  }

  hold(keys: Observable<string>): Observable<string> {
    if (this.waitFor.length === 0) return keys;
    return new Observable<string>((subscriber) => {
      const held = new Set<string>();
      let open = false;
      const keySubscription = keys.subscribe({
        next: (key) => (open ? subscriber.next(key) : held.add(key)),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      const syncSubscription = combineLatest(this.waitFor)
        .pipe(map((all) => all.every(Boolean)))
        .subscribe((synced) => {
          this.#synced = synced;
          if (!synced || open) return;
          open = true;
          for (const key of held) subscriber.next(key);
          held.clear();
        });
      return () => {
        keySubscription.unsubscribe();
        syncSubscription.unsubscribe();
      };
    });
  }
}
