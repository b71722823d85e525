/**
 * From the replica count the metrics ask for to the one the autoscaler sets: stabilization (the
 * recommendations of a recent window) and the rate limits (autoscaling/v2 `behavior` policies, or
 * upstream's fixed rule for autoscalers without one), as upstream's normalizeDesiredReplicas and
 * normalizeDesiredReplicasWithBehaviors. Pure apart from the per-autoscaler history it is handed;
 * time is the caller's (`nowMs`), so tests run it on virtual time.
 */

export type PolicyType = 'Pods' | 'Percent';
export type SelectPolicy = 'Max' | 'Min' | 'Disabled';

export interface ScalingPolicy {
  readonly type: PolicyType;
  readonly value: number;
  readonly periodSeconds: number;
}

export interface ScalingRules {
  readonly stabilizationWindowSeconds: number;
  readonly selectPolicy: SelectPolicy;
  readonly policies: readonly ScalingPolicy[];
}

export interface Behavior {
  readonly scaleUp: ScalingRules;
  readonly scaleDown: ScalingRules;
}

/** The spec's `behavior` as written (any field may be missing). */
export interface BehaviorSpec {
  readonly scaleUp?: Partial<ScalingRules> | undefined;
  readonly scaleDown?: Partial<ScalingRules> | undefined;
}

/** Upstream's defaults for a scale-up rule set: at once, by 4 pods or 100 % per 15 s, whichever is more. */
export const DEFAULT_SCALE_UP: ScalingRules = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};

/** Upstream's defaults for scale down: the window is the controller's `--horizontal-pod-autoscaler-downscale-stabilization`. */
export const defaultScaleDown = (downscaleStabilizationMs: number): ScalingRules => ({
  stabilizationWindowSeconds: Math.round(downscaleStabilizationMs / 1000),
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** A spec's behavior with every missing field filled as upstream defaults them. */
export function resolveBehavior(spec: BehaviorSpec, downscaleStabilizationMs: number): Behavior {
  const fill = (given: Partial<ScalingRules> | undefined, defaults: ScalingRules): ScalingRules => ({
    stabilizationWindowSeconds: given?.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds,
    selectPolicy: given?.selectPolicy ?? defaults.selectPolicy,
    policies: given?.policies && given.policies.length > 0 ? given.policies : defaults.policies,
  });
  return { scaleUp: fill(spec.scaleUp, DEFAULT_SCALE_UP), scaleDown: fill(spec.scaleDown, defaultScaleDown(downscaleStabilizationMs)) };
}

interface Recommendation {
  replicas: number;
  atMs: number;
}

interface ScaleEvent {
  change: number;
  atMs: number;
  outdated: boolean;
}

/** What one autoscaler remembers between syncs: recent recommendations and scale changes. */
export class ScaleHistory {
  readonly recommendations: Recommendation[] = [];
  readonly scaleUps: ScaleEvent[] = [];
  readonly scaleDowns: ScaleEvent[] = [];
}

/** A condition the normalization sets (AbleToScale or ScalingLimited). */
export interface NormalizedCondition {
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

export interface Normalized {
  readonly replicas: number;
  readonly ableToScale: NormalizedCondition;
  readonly scalingLimited: NormalizedCondition;
}

export interface NormalizeInput {
  readonly currentReplicas: number;
  /** What the metrics ask for. */
  readonly desiredReplicas: number;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly nowMs: number;
}

const READY: NormalizedCondition = { status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const UP_STABILIZED = { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };
const DOWN_STABILIZED = { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
const WITHIN_RANGE = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const TOO_MANY = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
const TOO_FEW = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
const UP_LIMIT = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
const DOWN_LIMIT = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };

const limited = (limitedNow: boolean, why: { reason: string; message: string }): NormalizedCondition => ({ status: limitedNow ? 'True' : 'False', ...why });

/**
 * An autoscaler without `behavior` (upstream's original rules): never below the highest
 * recommendation of the downscale stabilization window, up by at most double (at least to 4),
 * within min and max.
 */
export function normalizeWithoutBehavior(history: ScaleHistory, input: NormalizeInput, downscaleStabilizationMs: number): Normalized {
  const cutoff = input.nowMs - downscaleStabilizationMs;
  let stabilized = input.desiredReplicas;
  let replaced = false;
  for (const rec of history.recommendations) {
    if (rec.atMs > cutoff) stabilized = Math.max(stabilized, rec.replicas);
    else if (!replaced) {
      // Reuse one expired slot, so the history stays as long as the window holds.
      rec.replicas = input.desiredReplicas;
      rec.atMs = input.nowMs;
      replaced = true;
    }
  }
  if (!replaced) history.recommendations.push({ replicas: input.desiredReplicas, atMs: input.nowMs });
  const ableToScale = stabilized !== input.desiredReplicas ? { status: 'True' as const, ...DOWN_STABILIZED } : READY;

  const scaleUpLimit = Math.max(2 * input.currentReplicas, 4);
  const [maximum, maxWhy] = input.maxReplicas > scaleUpLimit ? [scaleUpLimit, UP_LIMIT] : [input.maxReplicas, TOO_MANY];
  let replicas = stabilized;
  let why = WITHIN_RANGE;
  if (stabilized < input.minReplicas) [replicas, why] = [input.minReplicas, TOO_FEW];
  else if (stabilized > maximum) [replicas, why] = [maximum, maxWhy];
  return { replicas, ableToScale, scalingLimited: limited(replicas !== stabilized, why) };
}

/** Replicas changed by the events of the last `periodSeconds`. */
function changeWithin(events: readonly ScaleEvent[], periodSeconds: number, nowMs: number): number {
  const cutoff = nowMs - periodSeconds * 1000;
  let sum = 0;
  for (const event of events) if (event.atMs > cutoff) sum += event.change;
  return sum;
}

/** The most replicas the scale-up policies allow now. */
export function scaleUpLimit(current: number, history: ScaleHistory, rules: ScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  for (const policy of rules.policies) {
    const periodStart = current - changeWithin(history.scaleUps, policy.periodSeconds, nowMs) + changeWithin(history.scaleDowns, policy.periodSeconds, nowMs);
    // Percent rounds up: a small count would otherwise never grow.
    const proposed = policy.type === 'Pods' ? periodStart + policy.value : Math.ceil(periodStart * (1 + policy.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** The fewest replicas the scale-down policies allow now. */
export function scaleDownLimit(current: number, history: ScaleHistory, rules: ScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // Min picks the policy that changes least, which is the highest floor.
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  for (const policy of rules.policies) {
    const periodStart = current - changeWithin(history.scaleUps, policy.periodSeconds, nowMs) + changeWithin(history.scaleDowns, policy.periodSeconds, nowMs);
    const proposed = policy.type === 'Pods' ? periodStart - policy.value : Math.trunc(periodStart * (1 - policy.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/**
 * An autoscaler with `behavior`: the lowest recommendation of the scale-up window (when going
 * up) or the highest of the scale-down window (going down), then the direction's policies, then
 * min and max.
 */
export function normalizeWithBehavior(history: ScaleHistory, input: NormalizeInput, behavior: Behavior): Normalized {
  const up = input.desiredReplicas >= input.currentReplicas;
  const windowSeconds = up ? behavior.scaleUp.stabilizationWindowSeconds : behavior.scaleDown.stabilizationWindowSeconds;
  const better = up ? Math.min : Math.max;
  const longest = Math.max(behavior.scaleUp.stabilizationWindowSeconds, behavior.scaleDown.stabilizationWindowSeconds);
  const obsolete = input.nowMs - longest * 1000;
  const cutoff = input.nowMs - windowSeconds * 1000;
  let stabilized = input.desiredReplicas;
  let oldSlot: Recommendation | undefined;
  for (const rec of history.recommendations) {
    if (rec.atMs > cutoff) stabilized = better(rec.replicas, stabilized);
    if (rec.atMs < obsolete) oldSlot = rec;
  }
  if (oldSlot) {
    oldSlot.replicas = input.desiredReplicas;
    oldSlot.atMs = input.nowMs;
  } else history.recommendations.push({ replicas: input.desiredReplicas, atMs: input.nowMs });
  const ableToScale = stabilized !== input.desiredReplicas ? { status: 'True' as const, ...(up ? UP_STABILIZED : DOWN_STABILIZED) } : READY;

  let replicas = stabilized;
  let why = WITHIN_RANGE;
  if (stabilized > input.currentReplicas) {
    const limit = Math.max(scaleUpLimit(input.currentReplicas, history, behavior.scaleUp, input.nowMs), input.currentReplicas);
    const [maximum, maxWhy] = input.maxReplicas > limit ? [limit, UP_LIMIT] : [input.maxReplicas, TOO_MANY];
    if (stabilized > maximum) [replicas, why] = [maximum, maxWhy];
  } else if (stabilized < input.currentReplicas) {
    const limit = Math.min(scaleDownLimit(input.currentReplicas, history, behavior.scaleDown, input.nowMs), input.currentReplicas);
    const [minimum, minWhy] = input.minReplicas < limit ? [limit, DOWN_LIMIT] : [input.minReplicas, TOO_FEW];
    if (stabilized < minimum) [replicas, why] = [minimum, minWhy];
  }
  return { replicas, ableToScale, scalingLimited: limited(replicas !== stabilized, why) };
}

/**
 * Records a change of scale the autoscaler made, for the policies' periods. Events older than the
 * longest period of their direction are outdated and their slots reused.
 */
export function recordScaleEvent(history: ScaleHistory, behavior: Behavior, from: number, to: number, nowMs: number): void {
  if (from === to) return;
  const [events, rules] = to > from ? [history.scaleUps, behavior.scaleUp] : [history.scaleDowns, behavior.scaleDown];
  const longest = Math.max(0, ...rules.policies.map((p) => p.periodSeconds));
  const cutoff = nowMs - longest * 1000;
  for (const event of events) if (event.atMs < cutoff) event.outdated = true;
  const event: ScaleEvent = { change: Math.abs(to - from), atMs: nowMs, outdated: false };
  const slot = events.findIndex((e) => e.outdated);
  if (slot >= 0) events[slot] = event;
  else events.push(event);
}
