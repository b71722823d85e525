import { filter, from, mergeMap, type Observable } from 'rxjs';
import {
  canonicalJson,
  countHealthyPods,
  disruptionsAllowed,
  labelSelectorFromSpec,
  matchesLabels,
  scaledBudgetValue,
  standingDisruptions,
  withDisruptionAllowed,
  type Pod,
  type PodDisruptionBudget,
} from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InformerEvent } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import { cacheOnly } from '../cache-only.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { expectedScale, workloadScaleSources, type ScaleSources } from './expected-scale.js';

export interface DisruptionControllerOptions {
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `disruption`).
const NAME = 'disruption-controller';

type BudgetStatus = NonNullable<PodDisruptionBudget['status']>;

/**
 * The disruption controller: keeps each PodDisruptionBudget's status — expected pods, healthy
 * pods now and needed, the disruptions allowed, the DisruptionAllowed condition and the evictions
 * still standing in `disruptedPods` — which the eviction subresource spends. One worker, as
 * upstream.
 */
export function disruptionController(ctx: ControllerContext, options: DisruptionControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const budgets = ctx.informers.informer(builtin.podDisruptionBudgets);
  const pods = ctx.informers.informer(builtin.pods);
  const sources = workloadScaleSources(ctx.informers, ctx.discovery);
  const now = options.now ?? Date.now;
  const budgetsOf = (event: InformerEvent<Pod>): string[] => {
    const objects = event.type === 'updated' ? [event.old, event.object] : [event.object];
    const keys = new Set<string>();
    for (const pdb of budgets.store.byIndex('namespace', event.object.metadata.namespace!)) {
      if (objects.some((pod) => selects(pdb, pod))) keys.add(`${pdb.metadata.namespace}/${pdb.metadata.name}`);
    }
    return [...keys];
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: budgets,
    watches: [
      { events$: pods.events$.pipe(filter((event) => event.type !== 'resync'), mergeMap((event) => from(budgetsOf(event)))), synced$: pods.synced$ },
      // The workload caches are read for scales: waited for; their changes reach the budgets through the pods.
      cacheOnly(sources.replicationControllers),
      cacheOnly(sources.replicaSets),
      cacheOnly(sources.deployments),
      cacheOnly(sources.statefulSets),
    ],
    concurrency: 1,
    stop$: ctx.stop$,
    reconcile: (key) => {
      const pdb = budgets.store.get(key);
      if (!pdb) return;
      return syncBudget(ctx.client, ctx.events, sources, pdb, pods.store.byIndex('namespace', pdb.metadata.namespace!), now());
    },
  });
}

/** policy/v1: no selector selects nothing, an empty one every pod of the namespace. */
function selects(pdb: PodDisruptionBudget, pod: Pod): boolean {
  const selector = pdb.spec?.selector;
  if (selector === undefined) return false;
  try {
    return matchesLabels(labelSelectorFromSpec(selector), pod.metadata.labels ?? {});
  } catch {
    return false;
  }
}

/**
 * The budget's status (upstream's trySync): expected pods and desired healthy from
 * `maxUnavailable` (of the controllers' scale, rounded up), an integer `minAvailable` (of the
 * selected pods) or a percentage (of the scale, rounded up); healthy pods are Ready, not being
 * deleted and not just evicted. What cannot be computed (a pod's controller not found) leaves no
 * disruption allowed, the condition saying why (upstream's failSafe), and is retried.
 */
async function syncBudget(client: Client, events: EventSink, sources: ScaleSources, pdb: PodDisruptionBudget, namespacePods: readonly Pod[], nowMs: number): Promise<Outcome<unknown> | void> {
  const spec = pdb.spec ?? {};
  const generation = pdb.metadata.generation ?? 1;
  const selected = namespacePods.filter((pod) => selects(pdb, pod));
  let expected: number;
  let desired: number;
  try {
    if (spec.maxUnavailable !== undefined) {
      expected = (await expectedScale(client, sources, selected)).expected;
      desired = Math.max(0, expected - (scaledBudgetValue(spec.maxUnavailable, expected) ?? expected));
    } else if (typeof spec.minAvailable === 'number') {
      expected = selected.length;
      desired = spec.minAvailable;
    } else if (typeof spec.minAvailable === 'string') {
      expected = (await expectedScale(client, sources, selected)).expected;
      desired = scaledBudgetValue(spec.minAvailable, expected) ?? expected;
    } else {
      expected = selected.length;
      desired = 0;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    events.record(
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', name: pdb.metadata.name!, namespace: pdb.metadata.namespace, uid: pdb.metadata.uid, resourceVersion: pdb.metadata.resourceVersion },
      'Warning',
      'CalculateExpectedPodCountFailed',
      `Failed to calculate the number of expected pods: ${message}`,
    );
    const failed: BudgetStatus = {
      ...pdb.status,
      observedGeneration: generation,
      disruptionsAllowed: 0,
      conditions: withDisruptionAllowed(pdb.status?.conditions, 0, generation, nowMs, message),
    };
    await writeStatus(client, pdb, failed);
    throw error;
  }
  const { disruptedPods, recheckAtMs } = standingDisruptions(pdb.status?.disruptedPods ?? {}, selected, nowMs);
  const currentHealthy = countHealthyPods(selected, disruptedPods);
  const allowed = disruptionsAllowed(currentHealthy, desired, expected);
  const { disruptedPods: _previous, ...rest } = pdb.status ?? {};
  const status: BudgetStatus = {
    ...rest,
    observedGeneration: generation,
    currentHealthy,
    desiredHealthy: desired,
    expectedPods: expected,
    disruptionsAllowed: allowed,
    ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
    conditions: withDisruptionAllowed(pdb.status?.conditions, allowed, generation, nowMs),
  };
  await writeStatus(client, pdb, status);
  // An eviction that did not lead to a deletion stops counting after its timeout: look again then.
  if (recheckAtMs !== undefined) return requeueAfter(Math.max(0, recheckAtMs - nowMs));
}

// An empty condition message may come back from a list without its key (protobuf keeps no empty
// string): read as '' so a restart does not rewrite a status that is already right.
const withMessages = (status: BudgetStatus): BudgetStatus => ({ ...status, ...(status.conditions ? { conditions: status.conditions.map((c) => ({ ...c, message: c.message ?? '' })) } : {}) });

/** Writes the status when it differs from the budget's (a 409 is retried with the fresh budget). */
async function writeStatus(client: Client, pdb: PodDisruptionBudget, status: BudgetStatus): Promise<void> {
  if (canonicalJson(withMessages(status)) === canonicalJson(withMessages(pdb.status ?? {}))) return;
  await client.updateStatus(builtin.podDisruptionBudgets, { ...pdb, status }, { namespace: pdb.metadata.namespace });
}
