import type { Observable } from 'rxjs';
import type { Client, DiscoveryCache, EventSink, InformerFactory } from '../src/client/index.js';
import type { ControllerOptions, ControllerResult } from './controller.js';

/**
 * What the controller runtime (and so the controller manager) hands every control loop it starts. A loop is a function of this
 * context (and of its own options, passed beside it) that returns its results stream; the runtime
 * subscribes while it leads and unsubscribes when it stops (controllers/runtime).
 */
export interface ControllerContext {
  /** The name the runtime runs this loop under (`--controllers`, the metrics' `name` label). */
  readonly name: string;
  /**
   * The loop's API client: in the controller manager (the runtime's `rateLimit`), a token bucket
   * of `--svc-api-qps` / `--svc-api-burst` of its own and the user agent `…/<name>`, on the
   * connections every loop shares.
   */
  readonly client: Client;
  /** Shared informers: two loops that watch one type share one watch and one cache. */
  readonly informers: InformerFactory;
  /**
   * The served types, read once for every loop of the term and refreshed every 30 s and when a
   * CustomResourceDefinition or APIService changes (the garbage collector, quota, namespace
   * deletion and PodDisruptionBudgets' scale lookups ask it rather than reading discovery each).
   */
  readonly discovery: DiscoveryCache;
  /**
   * Events of this loop (core/v1, counted when repeated): the runtime's shared recorder reporting
   * as the loop's name (`reportingComponent`, `source.component`).
   */
  readonly events: EventSink;
  /** Emits once when the loop must stop (shutdown or lost leadership); the loop then drains. */
  readonly stop$: Observable<unknown>;
  /**
   * Options the manager wants on every `controller({...})` a loop builds (instrumentation, the
   * drain timeout from `--controller-shutdown-timeout`, `stop$`): spread them into the builder's
   * options. Named per controller so the runtime can label its metrics (default: the loop's `name`).
   */
  readonly controllerDefaults: (name?: string) => ControllerDefaults;
}

/** What the manager sets on every controller: its stop signal, drain bound and metrics hooks. */
export type ControllerDefaults = Pick<ControllerOptions<unknown>, 'stop$' | 'drainTimeoutMs' | 'metrics' | 'onReconcileStart'>;

/** A control loop as the manager starts it. */
export type ControlLoop = (context: ControllerContext) => Observable<ControllerResult<unknown>>;
