import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../../src/testing/index.js';
import {
  normalizeWithBehavior,
  normalizeWithoutBehavior,
  recordScaleEvent,
  resolveBehavior,
  ScaleHistory,
  type Behavior,
} from '../../../controllers/horizontalpodautoscaler/scale-behavior.js';

const SEC = 1000;

/** One autoscaler's syncs on a virtual clock: each sync normalizes, applies and records the change. */
function autoscaler(behavior: Behavior | undefined, options: { min?: number; max?: number; current: number; downscaleMs?: number }) {
  const time = new VirtualTime();
  const history = new ScaleHistory();
  let current = options.current;
  return {
    time,
    get current() {
      return current;
    },
    sync(desired: number) {
      const input = { currentReplicas: current, desiredReplicas: desired, minReplicas: options.min ?? 1, maxReplicas: options.max ?? 100, nowMs: time.now() };
      const result = behavior ? normalizeWithBehavior(history, input, behavior) : normalizeWithoutBehavior(history, input, options.downscaleMs ?? 300 * SEC);
      if (behavior) recordScaleEvent(history, behavior, current, result.replicas, time.now());
      current = result.replicas;
      return result;
    },
  };
}

describe('scale behavior: defaults', () => {
  it('fills upstream defaults, the scale-down window from the controller option', () => {
    const b = resolveBehavior({ scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } }, 120 * SEC);
    expect(b.scaleUp).toEqual({
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    expect(b.scaleDown).toEqual({ stabilizationWindowSeconds: 120, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] });
    expect(resolveBehavior({ scaleDown: { stabilizationWindowSeconds: 0 } }, 300 * SEC).scaleDown.stabilizationWindowSeconds).toBe(0);
  });
});

describe('scale behavior: stabilization on virtual time', () => {
  it('does not scale down below a recommendation of the window, then does once it passes', async () => {
    const hpa = autoscaler(resolveBehavior({}, 60 * SEC), { current: 5 });
    expect(hpa.sync(5).replicas).toBe(5);
    await hpa.time.advanceBy(15 * SEC);
    const held = hpa.sync(1);
    expect(held.replicas).toBe(5);
    expect(held.ableToScale).toMatchObject({ status: 'True', reason: 'ScaleDownStabilized' });
    await hpa.time.advanceBy(30 * SEC);
    expect(hpa.sync(1).replicas).toBe(5); // the 5 of t=0 is still within 60 s
    await hpa.time.advanceBy(20 * SEC); // t=65 s: only 1s in the window
    const down = hpa.sync(1);
    expect(down.replicas).toBe(1);
    expect(down.ableToScale).toMatchObject({ reason: 'ReadyForNewScale' });
  });

  it('applies the lowest recommendation of a scale-up window', async () => {
    const hpa = autoscaler(resolveBehavior({ scaleUp: { stabilizationWindowSeconds: 30 } }, 0), { current: 2 });
    expect(hpa.sync(2).replicas).toBe(2);
    await hpa.time.advanceBy(10 * SEC);
    const held = hpa.sync(6);
    expect(held.replicas).toBe(2);
    expect(held.ableToScale.reason).toBe('ScaleUpStabilized');
    await hpa.time.advanceBy(25 * SEC); // the 2 of t=0 has left the window, the 6 of t=10 s is in it
    expect(hpa.sync(6).replicas).toBe(6);
  });

  it('without behavior: the downscale window, and up by at most double or to 4', async () => {
    const hpa = autoscaler(undefined, { current: 1, max: 50, downscaleMs: 30 * SEC });
    const up = hpa.sync(20);
    expect(up.replicas).toBe(4);
    expect(up.scalingLimited).toMatchObject({ status: 'True', reason: 'ScaleUpLimit' });
    expect(hpa.sync(20).replicas).toBe(8);
    await hpa.time.advanceBy(10 * SEC);
    // 20 was recommended within 30 s: the highest recommendation wins, capped at double (16).
    const held = hpa.sync(2);
    expect(held.replicas).toBe(16);
    expect(held.ableToScale.reason).toBe('ScaleDownStabilized');
    await hpa.time.advanceBy(25 * SEC); // t=35 s: only the 2 of t=10 s is in the window
    expect(hpa.sync(2).replicas).toBe(2);
  });
});

describe('scale behavior: policies', () => {
  it('scale up: Max picks the larger of Pods and Percent; the period counts earlier changes', async () => {
    const hpa = autoscaler(resolveBehavior({ scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }, { type: 'Percent', value: 50, periodSeconds: 60 }] } }, 0), { current: 10 });
    const first = hpa.sync(30);
    expect(first.replicas).toBe(15); // 50 % of 10 beats 2 pods
    expect(first.scalingLimited).toMatchObject({ status: 'True', reason: 'ScaleUpLimit' });
    await hpa.time.advanceBy(20 * SEC);
    expect(hpa.sync(30).replicas).toBe(15); // the period started at 10: nothing more until it passes
    await hpa.time.advanceBy(45 * SEC);
    expect(hpa.sync(30).replicas).toBe(23); // ceil(15 × 1.5)
  });

  it('scale up: Min picks the smaller; Disabled never scales that way', () => {
    const min = autoscaler(resolveBehavior({ scaleUp: { selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }, { type: 'Percent', value: 50, periodSeconds: 60 }] } }, 0), { current: 10 });
    expect(min.sync(30).replicas).toBe(12);
    const disabled = autoscaler(resolveBehavior({ scaleUp: { selectPolicy: 'Disabled' } }, 0), { current: 3 });
    const result = disabled.sync(10);
    expect(result.replicas).toBe(3);
    expect(result.scalingLimited.status).toBe('True');
  });

  it('scale down: Pods and Percent per period, Percent rounded down, never below min', async () => {
    const behavior = resolveBehavior({ scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } }, 0);
    const hpa = autoscaler(behavior, { current: 5, min: 2 });
    const first = hpa.sync(1);
    expect(first.replicas).toBe(4);
    expect(first.scalingLimited).toMatchObject({ status: 'True', reason: 'ScaleDownLimit' });
    await hpa.time.advanceBy(10 * SEC);
    expect(hpa.sync(1).replicas).toBe(4);
    await hpa.time.advanceBy(25 * SEC);
    expect(hpa.sync(1).replicas).toBe(3);
    await hpa.time.advanceBy(31 * SEC);
    const floor = hpa.sync(1);
    expect(floor.replicas).toBe(2);
    expect(floor.scalingLimited.reason).toBe('TooFewReplicas');

    const percent = autoscaler(resolveBehavior({ scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 50, periodSeconds: 30 }] } }, 0), { current: 5 });
    expect(percent.sync(1).replicas).toBe(2); // trunc(5 × 0.5)
  });

  it('caps at max with TooManyReplicas when the policies allow more', () => {
    const hpa = autoscaler(resolveBehavior({}, 0), { current: 2, max: 3 });
    const result = hpa.sync(10);
    expect(result.replicas).toBe(3);
    expect(result.scalingLimited).toMatchObject({ status: 'True', reason: 'TooManyReplicas' });
    expect(hpa.sync(3).scalingLimited).toMatchObject({ status: 'False', reason: 'DesiredWithinRange' });
  });
});
