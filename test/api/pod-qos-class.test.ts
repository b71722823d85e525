import { describe, expect, it } from 'vitest';
import { podQosClass } from '../../src/api/index.js';

const container = (resources?: object) => ({ name: 'c', image: 'i', ...(resources ? { resources } : {}) });

describe('podQosClass', () => {
  it('BestEffort when no container requests or limits CPU or memory (other resources do not count)', () => {
    expect(podQosClass({ containers: [container()] })).toBe('BestEffort');
    expect(podQosClass({ containers: [container({ limits: { 'ephemeral-storage': '1Gi' } })] })).toBe('BestEffort');
    expect(podQosClass(undefined)).toBe('BestEffort');
  });

  it('Guaranteed when every container limits both and requests equal the limits, compared as quantities', () => {
    expect(podQosClass({ containers: [container({ limits: { cpu: '1', memory: '1Gi' } })] })).toBe('Guaranteed');
    expect(podQosClass({ containers: [container({ requests: { cpu: '1000m', memory: '1024Mi' }, limits: { cpu: '1', memory: '1Gi' } })] })).toBe('Guaranteed');
  });

  it('Burstable otherwise, init containers included', () => {
    expect(podQosClass({ containers: [container({ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })] })).toBe('Burstable');
    expect(podQosClass({ containers: [container({ limits: { cpu: '1', memory: '1Gi' } }), container()] })).toBe('Burstable');
    expect(podQosClass({ containers: [container({ limits: { cpu: '1', memory: '1Gi' } })], initContainers: [container({ requests: { cpu: '1' } })] })).toBe('Burstable');
  });

  it('a quantity that is not one makes the pod Burstable, not an error', () => {
    expect(podQosClass({ containers: [container({ limits: { cpu: 'lots', memory: 'lots' } })] })).toBe('Burstable');
  });
});
