import { defer, filter, merge, Observable, ReplaySubject, timer, type Subscription } from 'rxjs';
import { APIREGISTRATION_GROUP, type KubeObject } from '../../src/api/index.js';
import { customResourceDefinitions, DiscoveryCache, InformerFactory, resource, type Client, type Informer, type EventRecorder, type InformerFactoryOptions } from '../../src/client/index.js';
import type { ControllerContext, ControlLoop } from '../context.js';
import type { ControllerResult, ReconcileStart } from '../controller.js';
import type { WorkqueueMetrics } from '../../operators/index.js';
import type { ManagerLog } from './log.js';

/**
 * One term of leadership: the selected loops running on a fresh informer factory. A term starts
 * with nothing cached (what a previous term knew may be stale by the time this process leads
 * again) and ends with a bounded drain.
 */

export interface TermOptions {
  /** The loops to run, by controller name, in start order. */
  readonly loops: ReadonlyMap<string, ControlLoop>;
  /** The shared informers' client (and every loop's and discovery's, unless given their own). */
  readonly client: Client;
  /** Each loop's client (`ctx.client`): the runtime's `rateLimit` gives each its own bucket. Default `client`. */
  readonly loopClient?: (loop: string) => Client;
  /** The discovery cache's client. Default `client`. */
  readonly discoveryClient?: Client;
  readonly informerOptions?: InformerFactoryOptions;
  /** `--controller-shutdown-timeout`: how long `stop()` lets loops finish their work in flight. */
  readonly drainTimeoutMs: number;
  /** `--controller-start-interval`: wait between starting one loop and the next. */
  readonly startIntervalMs?: number;
  readonly metrics?: (name: string) => WorkqueueMetrics;
  /** Each controller's reconcile starts with their triggers, by controller name (the event → reconcile start metrics). */
  readonly onReconcileStart?: (name: string) => (start: ReconcileStart) => void;
  /** The runtime's recorder: each loop gets a view of it reporting as the loop's name. */
  readonly events: EventRecorder;
  readonly log: ManagerLog;
  /** Each result of each loop, as it comes (the runtime's live view: loop-activity.ts). */
  readonly onResult?: (loop: string, result: ControllerResult<unknown>) => void;
}

export interface Term {
  /** Names of the loops started so far. */
  readonly started: readonly string[];
  /** Loops that failed (errored or threw at start) in this term, with why: they stay stopped until the next term. */
  readonly failed: ReadonlyMap<string, string>;
  /** Whether every informer the term's loops asked for has synced (readiness). */
  synced(): boolean;
  /**
   * Signals every loop to stop, waits for them to drain (at most the drain timeout), then cuts
   * whatever still runs and stops the informers. Idempotent.
   */
  stop(): Promise<void>;
}

/** APIServices, whose changes add and remove served group versions (aggregation). */
const API_SERVICES = resource({ group: APIREGISTRATION_GROUP, version: 'v1', resource: 'apiservices', namespaced: false, kind: 'APIService' });

/**
 * An informer's changes after its first list: the objects it lists at start (and replays to a new
 * subscriber) are what the first discovery read finds anyway, and resyncs change nothing.
 */
function changesOf(informer: Informer<KubeObject>): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    let live = false;
    const subscription = informer.events$.pipe(filter((event) => live && event.type !== 'resync')).subscribe(subscriber);
    // The first list's events are emitted before waitForSync resolves.
    informer.waitForSync().then(
      () => (live = true),
      () => undefined,
    );
    return subscription;
  });
}

export function startTerm(options: TermOptions): Term {
  const informers = new InformerFactory(options.client, options.informerOptions ?? {});
  // One discovery for every loop of the term, read again when a type is added or removed: the
  // metadata of CRDs and APIServices is watched from the first loop that asks.
  const discovery = new DiscoveryCache(options.discoveryClient ?? options.client, {
    changes$: defer(() => merge(changesOf(informers.informer<KubeObject>(customResourceDefinitions, { metadataOnly: true })), changesOf(informers.informer(API_SERVICES, { metadataOnly: true })))),
  });
  // A replay: a loop that subscribes to stop$ after it fired (a late start) still sees it.
  const stop$ = new ReplaySubject<void>(1);
  const contextOf = (loopName: string): ControllerContext => ({
    name: loopName,
    client: options.loopClient?.(loopName) ?? options.client,
    informers,
    discovery,
    events: options.events.forComponent(loopName),
    stop$,
    controllerDefaults: (name = loopName) => ({
      stop$,
      drainTimeoutMs: options.drainTimeoutMs,
      ...(options.metrics ? { metrics: options.metrics(name) } : {}),
      ...(options.onReconcileStart ? { onReconcileStart: options.onReconcileStart(name) } : {}),
    }),
  });
  const started: string[] = [];
  const failed = new Map<string, string>();
  const running = new Map<string, { subscription: Subscription; done: Promise<void> }>();
  let stopping = false;
  let pending: NodeJS.Timeout | undefined;

  const startLoop = (name: string, loop: ControlLoop): void => {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    let subscription: Subscription;
    try {
      subscription = loop(contextOf(name)).subscribe({
        next: (result) => {
          options.onResult?.(name, result);
          if (result.type === 'terminal') options.log.warn(`${name}: gave up on ${result.key}: ${String(result.error)}`);
        },
        error: (error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          failed.set(name, why);
          options.log.error(`${name} failed: ${why}`);
          finish();
        },
        complete: finish,
      });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      failed.set(name, `failed to start: ${why}`);
      options.log.error(`${name} failed to start: ${why}`);
      return;
    }
    running.set(name, { subscription, done });
    started.push(name);
    options.log.info(`started ${name}`);
  };

  const queue = [...options.loops];
  const startNext = (): void => {
    pending = undefined;
    const next = queue.shift();
    if (next === undefined || stopping) return;
    startLoop(next[0], next[1]);
    if (queue.length === 0) return;
    if ((options.startIntervalMs ?? 0) > 0) pending = setTimeout(startNext, options.startIntervalMs);
    else startNext();
  };
  startNext();

  let stopped: Promise<void> | undefined;
  return {
    started,
    failed,
    // Not before discovery answered: a loop that registers informers per discovered type would
    // add them after the others synced, and readiness would turn true, then false.
    synced: () => discovery.answered() && informers.hasSynced(),
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(pending);
        stop$.next();
        stop$.complete();
        const all = Promise.all([...running.values()].map((r) => r.done));
        // A loop that ignores stop$ (or whose reconcile hangs) is cut when the drain time is up.
        let cutTimer: Subscription | undefined;
        const cut = new Promise<void>((resolve) => (cutTimer = timer(options.drainTimeoutMs).subscribe(() => resolve())));
        await Promise.race([all, cut]);
        cutTimer?.unsubscribe();
        for (const [name, r] of running) {
          r.subscription.unsubscribe();
          options.log.debug(`stopped ${name}`);
        }
        discovery.stop();
        informers.stop();
      })();
      return stopped;
    },
  };
}
