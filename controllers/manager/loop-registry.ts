import type { ControlLoop } from '../context.js';
import type { ControllerName } from './controller-names.js';
import { followOnlyLoop } from './follow-only-loop.js';
import { builtin } from '../../src/client/index.js';

/**
 * Which control loops are built, by controller name, and how each is made from the manager's
 * settings. A name in controller-names.ts without an entry here is accepted by `--controllers`
 * and reported as not built when the manager starts.
 */

/** The options loops read, from the manager's flags (durations in ms). */
export interface LoopSettings {
  readonly concurrentNamespaceSyncs: number;
  readonly namespaceSyncPeriodMs: number;
  readonly concurrentGcSyncs: number;
  readonly minResyncPeriodMs: number;
}

/** Makes a loop from the settings; called once when the manager starts (the loop then runs once per term). */
export type LoopFactory = (settings: LoopSettings) => ControlLoop;

export type LoopRegistry = ReadonlyMap<ControllerName, LoopFactory>;

/**
 * The loops svc ships. The namespace controller and the garbage collector are written in
 * controllers/namespace/ and controllers/garbage-collector/; until they are merged their names
 * run a loop that follows their objects and reconciles nothing, so that leadership, metrics and
 * the drain are exercised end to end. Replace these two entries with the real loops.
 */
export function builtinLoops(): LoopRegistry {
  return new Map<ControllerName, LoopFactory>([
    ['namespace-controller', (s) => followOnlyLoop('namespace-controller', builtin.namespaces, { concurrency: s.concurrentNamespaceSyncs, resyncPeriodMs: s.namespaceSyncPeriodMs })],
    ['garbage-collector-controller', (s) => followOnlyLoop('garbage-collector-controller', builtin.configMaps, { concurrency: s.concurrentGcSyncs })],
  ]);
}
