import { describe, expect, it } from 'vitest';
import { MetricUnavailableError, resourceReplicas, type MetricSample, type PodSample, type ResourceReplicasInput } from '../../../controllers/horizontalpodautoscaler/replica-calculator.js';

const MIN = 60_000;
const NOW = 100 * MIN;
const settings = { tolerance: 0.1, cpuInitializationPeriodMs: 5 * MIN, initialReadinessDelayMs: 30_000 };

/** A running pod started long ago, Ready for a long time, requesting 1 core. */
const pod = (name: string, over: Partial<PodSample> = {}): PodSample => ({
  name,
  phase: 'Running',
  deleting: false,
  startTimeMs: NOW - 60 * MIN,
  ready: { status: true, lastTransitionMs: NOW - 59 * MIN },
  requestMilli: 1000,
  ...over,
});
const sample = (valueMilli: number, over: Partial<MetricSample> = {}): MetricSample => ({ valueMilli, timestampMs: NOW - 5_000, windowMs: 30_000, ...over });

function cpu(pods: PodSample[], usage: Record<string, number>, over: Partial<ResourceReplicasInput> = {}) {
  return resourceReplicas(
    {
      currentReplicas: pods.length,
      resource: 'cpu',
      target: { type: 'Utilization', averageUtilization: 50 },
      pods,
      samples: new Map(Object.entries(usage).map(([name, value]) => [name, sample(value)])),
      nowMs: NOW,
      ...over,
    },
    settings,
  );
}

describe('replica calculator: resource utilization', () => {
  it('scales by usage over target, rounded up', () => {
    // 90 % average against 50 %: ratio 1.8 × 3 pods = 5.4 → 6.
    const result = cpu([pod('a'), pod('b'), pod('c')], { a: 900, b: 900, c: 900 });
    expect(result.replicas).toBe(6);
    expect(result.averageUtilization).toBe(90);
    expect(result.averageValueMilli).toBe(900);
  });

  it('scales down when below the target', () => {
    // 10 % against 50 %: 0.2 × 4 = 0.8 → 1.
    expect(cpu([pod('a'), pod('b'), pod('c'), pod('d')], { a: 100, b: 100, c: 100, d: 100 }).replicas).toBe(1);
  });

  it('keeps the count within the tolerance', () => {
    // 54 % against 50 %: ratio 1.08, within 0.1.
    expect(cpu([pod('a'), pod('b')], { a: 540, b: 540 }).replicas).toBe(2);
    // 56 %: 1.12 is outside: ceil(2.24) = 3.
    expect(cpu([pod('a'), pod('b')], { a: 560, b: 560 }).replicas).toBe(3);
    // A wider tolerance keeps it.
    const wide = resourceReplicas(
      { currentReplicas: 2, resource: 'cpu', target: { type: 'Utilization', averageUtilization: 50 }, pods: [pod('a'), pod('b')], samples: new Map([['a', sample(560)], ['b', sample(560)]]), nowMs: NOW },
      { ...settings, tolerance: 0.2 },
    );
    expect(wide.replicas).toBe(2);
  });

  it('ignores deleted and failed pods', () => {
    const pods = [pod('a'), pod('b'), pod('gone', { deleting: true }), pod('failed', { phase: 'Failed' })];
    // Only a and b count: 100 % → ratio 2 × 2 ready = 4.
    expect(cpu(pods, { a: 1000, b: 1000, gone: 0, failed: 0 }, { currentReplicas: 4 }).replicas).toBe(4);
  });

  it('takes missing pods at their full request when scaling down, and at zero when scaling up', () => {
    // Scale down: a and b at 10 %; c missing counts as 100 %: (10+10+100)/3 = 40 % → ratio 0.8 × 3 = 2.4 → 3, the current count.
    expect(cpu([pod('a'), pod('b'), pod('c')], { a: 100, b: 100 }).replicas).toBe(3);
    // Without the missing pod the same usage would go to 1.
    expect(cpu([pod('a'), pod('b')], { a: 100, b: 100 }).replicas).toBe(1);
    // Scale up: a and b at 100 %; c missing counts as 0: 200/3 = 66 % → 1.32 × 3 = 3.96 → 4.
    expect(cpu([pod('a'), pod('b'), pod('c')], { a: 1000, b: 1000 }).replicas).toBe(4);
  });

  it('keeps the count when filling in missing pods turns the direction around', () => {
    // 60 % on a, c missing: first ratio 1.2 (up); filled with 0: 30 % → 0.6 (down) → no change.
    expect(cpu([pod('a'), pod('c')], { a: 600 }).replicas).toBe(2);
  });

  it('counts unready pods as using nothing when scaling up, and leaves them out otherwise', () => {
    const starting = pod('new', { startTimeMs: NOW - MIN, ready: { status: false, lastTransitionMs: NOW - MIN } });
    // Up: a at 100 % (ratio 2), new unready at 0 → (100+0)/2 = 50 % → ratio 1.0 → no change.
    expect(cpu([pod('a'), starting], { a: 1000, new: 1000 }).replicas).toBe(2);
    // Down: unready pods are not filled in: a at 10 % → 0.2 × 1 ready = 1.
    expect(cpu([pod('a'), starting], { a: 100, new: 1000 }).replicas).toBe(1);
  });

  it('treats pending pods as unready', () => {
    expect(cpu([pod('a'), pod('p', { phase: 'Pending' })], { a: 1000 }).replicas).toBe(2);
  });

  it('applies the CPU initialization period and the initial readiness delay', () => {
    // Within the initialization period: a Ready pod whose sample window began before it became ready is unready.
    const justReady = pod('j', { startTimeMs: NOW - 2 * MIN, ready: { status: true, lastTransitionMs: NOW - 10_000 } });
    expect(cpu([pod('a'), justReady], { a: 1000, j: 1000 }).replicas).toBe(2); // j counted as 0: ratio (1000+0)/2000 = 50 % → 1.0
    // The same pod ready long enough for one window counts.
    const settled = pod('s', { startTimeMs: NOW - 2 * MIN, ready: { status: true, lastTransitionMs: NOW - 60_000 } });
    expect(cpu([pod('a'), settled], { a: 1000, s: 1000 }).replicas).toBe(4);
    // After the initialization period: a not-ready pod that was ready once counts.
    const wasReady = pod('w', { ready: { status: false, lastTransitionMs: NOW - 10 * MIN } });
    expect(cpu([pod('a'), wasReady], { a: 1000, w: 1000 }).replicas).toBe(4);
    // ... and one that never became ready (its readiness changed within the delay after start) does not.
    const never = pod('n', { startTimeMs: NOW - 10 * MIN, ready: { status: false, lastTransitionMs: NOW - 10 * MIN + 10_000 } });
    expect(cpu([pod('a'), never], { a: 1000, n: 1000 }).replicas).toBe(2);
    // Memory samples get none of these rules.
    const memory = resourceReplicas(
      { currentReplicas: 2, resource: 'memory', target: { type: 'Utilization', averageUtilization: 50 }, pods: [pod('a'), never], samples: new Map([['a', sample(1000)], ['n', sample(1000)]]), nowMs: NOW },
      settings,
    );
    expect(memory.replicas).toBe(4);
  });

  it('fails without pods, without usable samples, or with a container missing its request', () => {
    expect(() => cpu([], {})).toThrow(/no pods returned by selector/);
    expect(() => cpu([pod('a', { phase: 'Pending' })], { a: 10 })).toThrow(MetricUnavailableError);
    expect(() => cpu([pod('a')], {})).toThrow(/did not receive metrics/);
    expect(() => cpu([pod('a', { requestMilli: undefined, containerWithoutRequest: 'web' })], { a: 10 })).toThrow('missing request for cpu in container web of Pod a');
  });
});

describe('replica calculator: average value', () => {
  const avg = (pods: PodSample[], usage: Record<string, number>, targetMilli: number) =>
    resourceReplicas(
      { currentReplicas: pods.length, resource: 'memory', target: { type: 'AverageValue', averageValueMilli: targetMilli }, pods, samples: new Map(Object.entries(usage).map(([n, v]) => [n, sample(v)])), nowMs: NOW },
      settings,
    );

  it('scales by average over target without needing requests', () => {
    const pods = [pod('a', { requestMilli: undefined }), pod('b', { requestMilli: undefined })];
    // Average 300 against 100: 3 × 2 = 6.
    const result = avg(pods, { a: 300, b: 300 }, 100);
    expect(result.replicas).toBe(6);
    expect(result.averageUtilization).toBeUndefined();
    expect(result.averageValueMilli).toBe(300);
    // Within tolerance.
    expect(avg(pods, { a: 105, b: 105 }, 100).replicas).toBe(2);
  });

  it('takes missing pods at the target when scaling down', () => {
    // a at 10, b missing at 100: 55/100 = 0.55 × 2 = 1.1 → 2 (ceil): current.
    expect(avg([pod('a'), pod('b')], { a: 10 }, 100).replicas).toBe(2);
    expect(avg([pod('a'), pod('b'), pod('c'), pod('d')], { a: 10, b: 10, c: 10 }, 100).replicas).toBe(2);
  });
});
