import { asyncScheduler, defer, repeat, timer, type SchedulerLike } from 'rxjs';
import type { Pod } from '../../api/index.js';
import type { EventRecorder } from '../../client/index.js';
import { EvictionState, thresholdMet, type NodePressure } from './eviction-state.js';
import { evictionMessage } from './eviction-message.js';
import type { EvictionThreshold } from './eviction-thresholds.js';
import type { EvictionObservation } from './observe.js';
import type { FileLog } from '../log/index.js';
import { isCriticalPod, rankForEviction, RESOURCE_OF, type PodCandidate } from './pod-ranking.js';

/** The kubelet's eviction monitoring period. */
export const EVICTION_MONITORING_INTERVAL_MS = 10_000;

/** A hard threshold's eviction gives the pod this much (upstream's immediate eviction). */
export const IMMEDIATE_EVICTION_GRACE_SECONDS = 1;

/** What happened in one pass, for logs, tests and the bench. */
export type EvictionPassResult =
  | { readonly type: 'none' }
  | { readonly type: 'waiting'; readonly signals: readonly string[] }
  | { readonly type: 'reclaimed'; readonly signal: string }
  | { readonly type: 'evicted'; readonly signal: string; readonly pod: Pod; readonly message: string; readonly gracePeriodSeconds: number }
  | { readonly type: 'no-candidate'; readonly signal: string };

export interface EvictionManagerOptions {
  readonly thresholds: readonly EvictionThreshold[];
  /** `--eviction-max-pod-grace-period`, seconds: a soft eviction's longest grace; negative: the pod's own. */
  readonly maxPodGracePeriodSeconds: number;
  /** Default {@link EVICTION_MONITORING_INTERVAL_MS}. */
  readonly intervalMs?: number | undefined;
  readonly observe: () => Promise<EvictionObservation>;
  /** The pods the agent runs now (not terminating). */
  readonly activePods: () => readonly Pod[];
  readonly isStaticPod: (pod: Pod) => boolean;
  /** Kills the pod with the grace period and marks it Failed/Evicted with the message; resolves once it is stopped. */
  readonly evict: (pod: Pod, gracePeriodSeconds: number, message: string) => Promise<void>;
  /** Node-level reclaim for disk signals: dead containers, then unused images. */
  readonly reclaimDisk?: (() => Promise<void>) | undefined;
  readonly events?: EventRecorder | undefined;
  readonly nodeRef?: { readonly apiVersion: 'v1'; readonly kind: 'Node'; readonly name: string; readonly uid?: string | undefined } | undefined;
  readonly scheduler?: SchedulerLike | undefined;
  readonly now?: () => number;
  readonly onPass?: ((result: EvictionPassResult) => void) | undefined;
  /** Each pass's first observation (the memcg notifiers move their thresholds with it). */
  readonly onObserved?: ((observation: EvictionObservation) => void) | undefined;
  /** This file's log: each pass's outcome at -v 4, its trigger at -v 5. */
  readonly log?: FileLog | undefined;
  readonly onError?: ((error: unknown) => void) | undefined;
}

export interface EvictionManagerHandle {
  /** The pressures of the thresholds met at the last pass (the node conditions read them). */
  pressures(): ReadonlySet<NodePressure>;
  /** One pass now (tests and the memcg notifier drive it; `trigger` names why, for the log); passes never overlap. */
  pass(trigger?: string): Promise<EvictionPassResult>;
  stop(): void;
}

const DISK_SIGNALS = new Set(['nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree']);

/**
 * The kubelet's eviction manager: every interval it observes the signals, decides which
 * thresholds are met (soft ones after their grace, a met one held until its minimum reclaim is
 * reached), reclaims node-level resources first for disk signals, and otherwise evicts one pod —
 * the first of the ranking for the starved resource — per pass. Static and system-critical pods
 * are never evicted.
 */
export function startEvictionManager(o: EvictionManagerOptions): EvictionManagerHandle {
  const state = new EvictionState(o.thresholds);
  const now = o.now ?? Date.now;
  let pressures: ReadonlySet<NodePressure> = new Set();
  let running: Promise<EvictionPassResult> | undefined;

  const synchronize = async (): Promise<EvictionPassResult> => {
    const seen = await o.observe();
    o.onObserved?.(seen);
    const decision = state.observe(seen.signals, now());
    pressures = decision.pressures;
    if (decision.toReclaim.length === 0) {
      return decision.met.length > 0 ? { type: 'waiting', signals: decision.met.map((t) => t.signal) } : { type: 'none' };
    }
    const threshold = decision.toReclaim[0]!;
    const resource = RESOURCE_OF[threshold.signal];
    if (o.nodeRef) o.events?.record(o.nodeRef, 'Warning', 'EvictionThresholdMet', `Attempting to reclaim ${resource}`);
    let observation = seen;
    if (DISK_SIGNALS.has(threshold.signal) && o.reclaimDisk) {
      await o.reclaimDisk();
      observation = await o.observe();
      // Resolved by node-level reclaim (to the minimum reclaim): no pod needs to go.
      if (!decision.toReclaim.some((t) => thresholdMet(t, observation.signals, true))) return { type: 'reclaimed', signal: threshold.signal };
    }
    const candidates: PodCandidate[] = o
      .activePods()
      .filter((pod) => !isCriticalPod(pod, o.isStaticPod))
      .map((pod) => ({ pod, usage: observation.usage.get(pod.metadata.uid ?? '') ?? {} }));
    const victim = rankForEviction(candidates, resource)[0];
    if (!victim) return { type: 'no-candidate', signal: threshold.signal };
    const signal = observation.signals.get(threshold.signal) ?? seen.signals.get(threshold.signal)!;
    const message = evictionMessage(threshold, signal, victim.pod, victim.usage);
    const own = victim.pod.spec.terminationGracePeriodSeconds ?? 30;
    const gracePeriodSeconds = threshold.hard ? IMMEDIATE_EVICTION_GRACE_SECONDS : o.maxPodGracePeriodSeconds < 0 ? own : Math.min(o.maxPodGracePeriodSeconds, own);
    await o.evict(victim.pod, gracePeriodSeconds, message);
    return { type: 'evicted', signal: threshold.signal, pod: victim.pod, message, gracePeriodSeconds };
  };

  const pass = (trigger = 'housekeeping'): Promise<EvictionPassResult> => {
    if (running) return running;
    o.log?.info(5, `eviction pass (${trigger})`);
    running = synchronize()
      .then((result) => {
        if (o.log?.v(4)) o.log.info(4, `eviction pass: ${result.type}${'signal' in result ? ` ${result.signal}` : ''}${'signals' in result ? ` ${result.signals.join(',')}` : ''}`);
        o.onPass?.(result);
        return result;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const subscription = defer(() =>
    pass('housekeeping').catch((error: unknown) => {
      o.onError?.(error);
    }),
  )
    .pipe(repeat({ delay: () => timer(o.intervalMs ?? EVICTION_MONITORING_INTERVAL_MS, o.scheduler ?? asyncScheduler) }))
    .subscribe();

  return {
    pressures: () => pressures,
    pass,
    stop: () => subscription.unsubscribe(),
  };
}
