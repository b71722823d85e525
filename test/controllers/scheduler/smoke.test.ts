import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundNode, createNodes, createPods, node, pod, startBed, unschedulableCondition, type SchedulerTestBed } from './support.js';

describe('smoke', () => {
  let bed: SchedulerTestBed;
  beforeAll(async () => {
    bed = await startBed();
  });
  afterAll(async () => bed?.close());

  it('binds a pod and marks one that fits nowhere', async () => {
    await createNodes(bed.client, node('n1', { cpu: '1' }));
    bed.start();
    await createPods(bed.client, pod('a', { cpu: '500m' }), pod('big', { cpu: '2' }));
    expect(await boundNode(bed.client, 'a')).toBe('n1');
    const c = await unschedulableCondition(bed.client, 'big');
    expect(c.reason).toBe('Unschedulable');
    expect(c.message).toBe('0/1 nodes are available: 1 Insufficient cpu.');
  });
});
