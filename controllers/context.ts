import type { Observable } from 'rxjs';
import type { Client, InformerFactory } from '../src/client/index.js';
import type { ControllerOptions, ControllerResult } from './controller.js';

/**
 * What the controller manager hands every control loop it starts. A loop is a function of this
 * context (and of its own options, passed beside it) that returns its results stream; the manager
 * subscribes while it leads and unsubscribes when it stops.
 */
export interface ControllerContext {
  /** The API client, already throttled by `--svc-api-qps` / `--svc-api-burst`. */
  readonly client: Client;
  /** Shared informers: two loops that watch one type share one watch and one cache. */
  readonly informers: InformerFactory;
  /** Emits once when the loop must stop (shutdown or lost leadership); the loop then drains. */
  readonly stop$: Observable<unknown>;
  /**
   * Options the manager wants on every `controller({...})` a loop builds (instrumentation, the
   * drain timeout from `--controller-shutdown-timeout`, `stop$`): spread them into the builder's
   * options. Named per loop so the manager can label its metrics.
   */
  readonly controllerDefaults: (name: string) => ControllerDefaults;
}

/** What the manager sets on every controller: its stop signal, drain bound and metrics hook. */
export type ControllerDefaults = Pick<ControllerOptions<unknown>, 'stop$' | 'drainTimeoutMs' | 'metrics'>;

/** A control loop as the manager starts it. */
export type ControlLoop = (context: ControllerContext) => Observable<ControllerResult<unknown>>;
