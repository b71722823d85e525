import { describe, expect, it } from 'vitest';
import { milliValue, podRequests } from '../../../controllers/scheduler/index.js';
import { pod } from './support.js';

describe('milliValue', () => {
  it.each([
    ['500m', 500],
    ['2', 2000],
    [1.5, 1500],
    ['1Ki', 1_024_000],
    ['1Gi', 2 ** 30 * 1000],
    ['1e3', 1_000_000],
    ['1.5k', 1_500_000],
    ['0.1', 100],
    ['1n', 1],
    ['bogus', 0],
  ])('%s is %d milli-units (rounded up)', (q, milli) => {
    expect(milliValue(q)).toBe(milli);
  });
});

describe('podRequests', () => {
  it('sums containers, takes the larger of that and the biggest init container, adds overhead', () => {
    const p = pod('p', { cpu: '1', memory: '1Gi' });
    p.spec.containers.push({ name: 'd', image: 'x', resources: { requests: { cpu: '500m' } } });
    p.spec.initContainers = [{ name: 'i', image: 'x', resources: { requests: { cpu: '1', memory: '3Gi' } } }];
    p.spec.overhead = { cpu: '100m' };
    const r = podRequests(p);
    expect(r.get('cpu')).toBe(1600);
    expect(r.get('memory')).toBe(3 * 2 ** 30 * 1000);
  });

  it('adds sidecars (restartPolicy Always init containers) to the containers, and to the init containers after them', () => {
    const p = pod('p', { cpu: '1' });
    p.spec.initContainers = [
      { name: 'side', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '500m' } } },
      { name: 'init', image: 'x', resources: { requests: { cpu: '1200m' } } },
    ];
    // containers 1 + sidecar 0.5 = 1.5; init runs beside the sidecar: 1.2 + 0.5 = 1.7.
    expect(podRequests(p).get('cpu')).toBe(1700);
  });
});
