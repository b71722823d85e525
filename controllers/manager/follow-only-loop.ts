import type { KubeObject } from '../../src/api/index.js';
import type { Resource } from '../../src/client/index.js';
import type { ControlLoop } from '../context.js';
import { controller } from '../controller.js';

/**
 * A stand-in loop: follows one type through a shared informer and reconciles nothing. It stands
 * for a controller whose real loop is built in another branch, so that the manager's leadership,
 * drain and per-controller metrics run end to end meanwhile. Not a controller: remove its uses
 * as the real loops land.
 */
export function followOnlyLoop(
  name: string,
  resource: Resource<KubeObject>,
  options: { readonly concurrency?: number; readonly resyncPeriodMs?: number } = {},
): ControlLoop {
  return (context) =>
    controller({
      ...context.controllerDefaults(name),
      name,
      for: context.informers.informer(resource, options.resyncPeriodMs !== undefined ? { resyncPeriodMs: options.resyncPeriodMs } : {}).events$,
      reconcile: () => undefined,
      concurrency: options.concurrency ?? 1,
    });
}
