// The CPU manager's reconcile loop (--cpu-manager-reconcile-period): the runtime's running
// containers are brought to the cpusets the managers want, through CRI UpdateContainerResources.
// The shared pool shrinks and grows as exclusive pods come and go, so containers already
// running on it are updated here; state of pods no longer active is released first.
import { EMPTY, interval, merge, Subject, concatMap, type Observable, type SchedulerLike } from 'rxjs';
import type { Pod } from '../../api/index.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL, type CriClient } from '../cri/index.js';
import type { ResourceManagers } from './resource-managers.js';

export interface CpusetReconcilerOptions {
  readonly managers: ResourceManagers;
  readonly cri: CriClient;
  /** The pods the agent runs (not terminated): their state is kept, every other pod's released. */
  readonly activePods: () => readonly Pod[];
  /** Until every pod source has delivered its pods, no state is stale (a restarted agent would drop all). */
  readonly sourcesReady: () => boolean;
  /** --cpu-manager-reconcile-period, ms. */
  readonly periodMs: number;
  readonly scheduler?: SchedulerLike | undefined;
  readonly onError?: ((error: unknown) => void) | undefined;
}

export interface CpusetReconcilePass {
  /** Pod UIDs whose state was released. */
  readonly released: readonly string[];
  /** Container ids updated, with the cpuset each got. */
  readonly updated: readonly { readonly containerId: string; readonly cpusetCpus: string }[];
}

export interface CpusetReconciler {
  /** Every pass's result. */
  readonly passes$: Observable<CpusetReconcilePass>;
  /** A pass now (after an admission or a release changed the shared pool). */
  trigger(): void;
  stop(): void;
}

export function startCpusetReconciler(options: CpusetReconcilerOptions): CpusetReconciler {
  const applied = new Map<string, string>();
  const triggers = new Subject<void>();
  const passes = new Subject<CpusetReconcilePass>();
  const pass = async (): Promise<CpusetReconcilePass> => {
    const active = options.activePods();
    const released = options.sourcesReady() ? options.managers.removeStale(new Set(active.map((p) => p.metadata.uid ?? ''))) : [];
    const byUid = new Map(active.map((p) => [p.metadata.uid ?? '', p]));
    const updated: { containerId: string; cpusetCpus: string }[] = [];
    if (options.managers.cpu.policy !== 'static') return { released, updated };
    const { containers } = await options.cri.listContainers({ filter: { id: '', podSandboxId: '', labelSelector: {}, state: { state: 'CONTAINER_RUNNING' } } });
    const running = new Set<string>();
    for (const container of containers) {
      running.add(container.id);
      const pod = byUid.get(container.labels[POD_UID_LABEL] ?? '');
      const name = container.labels[CONTAINER_NAME_LABEL];
      if (!pod || !name) continue;
      const cpus = options.managers.cpu.cpusetOf(pod.metadata.uid ?? '', name);
      if (!cpus || cpus.length === 0) continue;
      const text = options.managers.containerCpuset(pod, { name, image: '' }).cpusetCpus ?? '';
      if (applied.get(container.id) === text) continue;
      await options.cri.updateContainerResources({ containerId: container.id, linux: { cpusetCpus: text } });
      applied.set(container.id, text);
      updated.push({ containerId: container.id, cpusetCpus: text });
    }
    for (const id of applied.keys()) if (!running.has(id)) applied.delete(id);
    return { released, updated };
  };
  const ticks = options.periodMs > 0 ? interval(options.periodMs, options.scheduler) : EMPTY;
  const subscription = merge(ticks, triggers)
    .pipe(
      concatMap(() =>
        pass().catch((error: unknown) => {
          options.onError?.(error);
          return undefined;
        }),
      ),
    )
    .subscribe((result) => {
      if (result) passes.next(result);
    });
  return {
    passes$: passes.asObservable(),
    trigger: () => triggers.next(),
    stop: () => {
      subscription.unsubscribe();
      passes.complete();
    },
  };
}
