// A pod's requests as the overview sums them per node (src/dashboard/ui/pod-requests.ts): the
// rules of the scheduler and `kubectl describe node` for containers, init containers, sidecars
// and overhead.
import { describe, expect, it } from 'vitest';
import { podRequest } from '../../src/dashboard/ui/pod-requests.js';

const c = (cpu?: string, restartPolicy?: string) => ({ ...(restartPolicy === undefined ? {} : { restartPolicy }), resources: cpu === undefined ? {} : { requests: { cpu } } });

describe("a pod's request", () => {
  it('sums its containers, a container without requests counting 0', () => {
    expect(podRequest({ containers: [c('250m'), c('1'), c()] }, 'cpu')).toBe(1250);
    expect(podRequest({ containers: [c('250m')] }, 'memory')).toBe(0);
    expect(podRequest(undefined, 'cpu')).toBe(0);
  });

  it('takes an init container instead when it asks for more than the containers', () => {
    expect(podRequest({ containers: [c('100m')], initContainers: [c('2'), c('500m')] }, 'cpu')).toBe(2000);
    expect(podRequest({ containers: [c('3')], initContainers: [c('2')] }, 'cpu')).toBe(3000);
  });

  it('adds sidecars to the containers, and to the init containers started after them', () => {
    // A sidecar of 200m, then an init container of 1: 1200m while it runs, 300m after.
    expect(podRequest({ containers: [c('100m')], initContainers: [c('200m', 'Always'), c('1')] }, 'cpu')).toBe(1200);
    // An init container before the sidecar runs alone.
    expect(podRequest({ containers: [c('100m')], initContainers: [c('1'), c('200m', 'Always')] }, 'cpu')).toBe(1000);
    expect(podRequest({ containers: [c('1')], initContainers: [c('200m', 'Always'), c('500m')] }, 'cpu')).toBe(1200);
  });

  it("adds the pod's overhead", () => {
    expect(podRequest({ containers: [c('100m')], overhead: { cpu: '50m' } }, 'cpu')).toBe(150);
  });
});
