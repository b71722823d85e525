/**
 * What users see of a pod that fits nowhere (the condition, its message, the Event) and how it
 * is retried when the cluster changes, against a real svc-apiserver.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { boundNode, createNodes, createPods, node, nodeOf, pod, startBed, unschedulableCondition, until, type SchedulerTestBed } from './support.js';

let bed: SchedulerTestBed;
beforeEach(async () => {
  bed = await startBed();
});
afterEach(async () => bed?.close());

describe('a pod that fits nowhere', () => {
  it('gets PodScheduled=False, reason Unschedulable, with the nodes counted per reason, and one FailedScheduling Event', async () => {
    await createNodes(
      bed.client,
      node('tainted', { taints: [{ key: 'x', value: 'y', effect: 'NoSchedule' }] }),
      node('small-1', { cpu: '1' }),
      node('small-2', { cpu: '1' }),
    );
    const running = bed.start();
    await createPods(bed.client, pod('p', { cpu: '2' }));
    const c = await unschedulableCondition(bed.client, 'p');
    expect(c.reason).toBe('Unschedulable');
    expect(c.message).toBe('0/3 nodes are available: 1 node(s) had untolerated taint {x: y}, 2 Insufficient cpu.');
    expect(running.results).toContainEqual({ type: 'unschedulable', pod: 'default/p', message: c.message });
    let events: { reason?: string; message?: string; type?: string; involvedObject: { name?: string } }[] = [];
    for (let i = 0; i < 200 && events.length === 0; i++) {
      events = (await bed.client.list(builtin.coreEvents, { namespace: 'default' })).items.filter((e) => e.reason === 'FailedScheduling');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', message: c.message, involvedObject: { name: 'p' } });
  });

  it('says so when there are no nodes', async () => {
    bed.start();
    await createPods(bed.client, pod('p'));
    expect((await unschedulableCondition(bed.client, 'p')).message).toBe('no nodes available to schedule pods');
  });
});

describe('retries', () => {
  it('binds an unschedulable pod when a node is added', async () => {
    await createNodes(bed.client, node('small', { cpu: '1' }));
    bed.start();
    await createPods(bed.client, pod('p', { cpu: '2' }));
    await unschedulableCondition(bed.client, 'p');
    await createNodes(bed.client, node('big', { cpu: '4' }));
    expect(await boundNode(bed.client, 'p')).toBe('big');
  });

  it('binds it when a node is uncordoned, or gets the label it selects', async () => {
    await createNodes(bed.client, node('cordoned', { unschedulable: true }), node('plain'));
    bed.start();
    await createPods(bed.client, pod('c', { nodeSelector: { 'kubernetes.io/hostname': 'cordoned' } }), pod('l', { nodeSelector: { disk: 'ssd' } }));
    await unschedulableCondition(bed.client, 'c');
    await unschedulableCondition(bed.client, 'l');
    await bed.client.patch(builtin.nodes, 'cordoned', { spec: { unschedulable: false } });
    expect(await boundNode(bed.client, 'c')).toBe('cordoned');
    await bed.client.patch(builtin.nodes, 'plain', { metadata: { labels: { disk: 'ssd' } } });
    expect(await boundNode(bed.client, 'l')).toBe('plain');
  });

  it('binds it when a node becomes Ready', async () => {
    await createNodes(bed.client, node('n1', { ready: 'False' }));
    bed.start();
    await createPods(bed.client, pod('p'));
    await unschedulableCondition(bed.client, 'p');
    await bed.client.transport.request({
      method: 'PATCH',
      path: '/api/v1/nodes/n1/status',
      contentType: 'application/merge-patch+json',
      body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    });
    expect(await boundNode(bed.client, 'p')).toBe('n1');
  });

  it('binds it when a pod on the node is deleted and frees room', async () => {
    await createNodes(bed.client, node('n1', { cpu: '1' }));
    await createPods(bed.client, pod('hog', { cpu: '1', nodeName: 'n1' }));
    bed.start();
    await createPods(bed.client, pod('p', { cpu: '500m' }));
    await unschedulableCondition(bed.client, 'p');
    await bed.client.delete(builtin.pods, 'hog', { gracePeriodSeconds: 0 });
    expect(await boundNode(bed.client, 'p')).toBe('n1');
  });

  it('binds it when a pod on the node finishes (it leaves the scheduler\'s watch of unfinished pods)', async () => {
    await createNodes(bed.client, node('n1', { cpu: '1' }));
    await createPods(bed.client, pod('hog', { cpu: '1', nodeName: 'n1' }));
    bed.start();
    await createPods(bed.client, pod('p', { cpu: '500m' }));
    await unschedulableCondition(bed.client, 'p');
    await bed.client.transport.request({
      method: 'PATCH',
      path: '/api/v1/namespaces/default/pods/hog/status',
      contentType: 'application/merge-patch+json',
      body: { status: { phase: 'Succeeded' } },
    });
    expect(await boundNode(bed.client, 'p')).toBe('n1');
  });

  it('binds it when the pod itself is changed to fit (a toleration added)', async () => {
    await createNodes(bed.client, node('n1', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }));
    bed.start();
    await createPods(bed.client, pod('p'));
    await unschedulableCondition(bed.client, 'p');
    await bed.client.patch(builtin.pods, 'p', [{ op: 'add', path: '/spec/tolerations', value: [{ key: 'dedicated', operator: 'Exists' }] }], { type: 'json' });
    expect(await boundNode(bed.client, 'p')).toBe('n1');
  });

  it('does not write the same unschedulable condition again on each retry', async () => {
    await createNodes(bed.client, node('small', { cpu: '1' }));
    const running = bed.start();
    await createPods(bed.client, pod('p', { cpu: '2' }));
    await unschedulableCondition(bed.client, 'p');
    const rv = (await bed.client.get(builtin.pods, 'p')).metadata.resourceVersion;
    // Node updates that change nothing the pod needs do not wake it; a relevant one does, and it fails again the same way.
    await bed.client.patch(builtin.nodes, 'small', { metadata: { labels: { extra: 'yes' } } });
    await until(() => running.results.filter((r) => r.type === 'unschedulable').length >= 2, 'a second attempt');
    await new Promise((r) => setTimeout(r, 100));
    expect((await bed.client.get(builtin.pods, 'p')).metadata.resourceVersion).toBe(rv);
  });
});

describe('order', () => {
  it('schedules the higher priority pod first when both want the last room', async () => {
    await createNodes(bed.client, node('n1', { cpu: '1' }));
    // Both pods exist before the scheduler starts, so the queue decides the order.
    await createPods(bed.client, pod('low', { cpu: '1', priority: 0 }), pod('high', { cpu: '1', priority: 1000 }));
    bed.start();
    expect(await boundNode(bed.client, 'high')).toBe('n1');
    await unschedulableCondition(bed.client, 'low');
    expect(await nodeOf(bed.client, 'low')).toBe('');
  });
});
