/**
 * Each filter against a real svc-apiserver: the pod lands on the node the filter allows, and a pod
 * no node allows gets PodScheduled=False with the filter's reason.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { boundNode, createNodes, createPods, node, pod, startBed, unschedulableCondition, type SchedulerTestBed } from './support.js';

let bed: SchedulerTestBed;
beforeEach(async () => {
  bed = await startBed();
});
afterEach(async () => bed?.close());

async function expectUnschedulable(name: string, message: string): Promise<void> {
  const c = await unschedulableCondition(bed.client, name);
  expect(c.reason).toBe('Unschedulable');
  expect(c.message).toBe(message);
}

describe('NodeUnschedulable', () => {
  it('does not place a pod on a cordoned node', async () => {
    await createNodes(bed.client, node('n1', { unschedulable: true }));
    bed.start();
    await createPods(bed.client, pod('p'));
    await expectUnschedulable('p', '0/1 nodes are available: 1 node(s) were unschedulable.');
  });
  it('places a pod that tolerates node.kubernetes.io/unschedulable on a cordoned node', async () => {
    await createNodes(bed.client, node('n1', { unschedulable: true }));
    bed.start();
    await createPods(bed.client, pod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }));
    expect(await boundNode(bed.client, 'p')).toBe('n1');
  });
});

describe('node readiness', () => {
  it('does not place a pod on a node whose Ready is False or missing, as the not-ready taint would', async () => {
    await createNodes(bed.client, node('n1', { ready: 'False' }), node('n2', { ready: null }));
    bed.start();
    await createPods(bed.client, pod('p'));
    await expectUnschedulable('p', '0/2 nodes are available: 2 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.');
  });
  it('treats Ready Unknown as unreachable', async () => {
    await createNodes(bed.client, node('n1', { ready: 'Unknown' }));
    bed.start();
    await createPods(bed.client, pod('p'));
    await expectUnschedulable('p', '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.');
  });
  it('places a pod on the Ready node, and a pod tolerating not-ready on a node that is not', async () => {
    await createNodes(bed.client, node('down', { ready: 'False' }), node('up'));
    bed.start();
    await createPods(bed.client, pod('p'), pod('ds', { nodeSelector: { 'kubernetes.io/hostname': 'down' }, tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }] }));
    expect(await boundNode(bed.client, 'p')).toBe('up');
    expect(await boundNode(bed.client, 'ds')).toBe('down');
  });
});

describe('TaintToleration', () => {
  it('does not place a pod on a node with an untolerated NoSchedule taint', async () => {
    await createNodes(bed.client, node('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }));
    bed.start();
    await createPods(bed.client, pod('p'));
    await expectUnschedulable('p', '0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}.');
  });
  it('does not place a pod on a node with an untolerated NoExecute taint, nor with a toleration of the wrong value', async () => {
    await createNodes(bed.client, node('n1', { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] }));
    bed.start();
    await createPods(bed.client, pod('p', { tolerations: [{ key: 'k', operator: 'Equal', value: 'other', effect: 'NoExecute' }] }));
    await expectUnschedulable('p', '0/1 nodes are available: 1 node(s) had untolerated taint {k: v}.');
  });
  it('places pods that tolerate the taint by Equal, by Exists, and by an empty key with Exists', async () => {
    const taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const }, { key: 'k', value: 'v', effect: 'NoExecute' as const }];
    await createNodes(bed.client, node('n1', { taints }));
    bed.start();
    await createPods(
      bed.client,
      pod('equal', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, { key: 'k', value: 'v' }] }),
      pod('exists', { tolerations: [{ key: 'dedicated', operator: 'Exists' }, { key: 'k', operator: 'Exists', effect: 'NoExecute' }] }),
      pod('all', { tolerations: [{ operator: 'Exists' }] }),
    );
    for (const name of ['equal', 'exists', 'all']) expect(await boundNode(bed.client, name)).toBe('n1');
  });
  it('ignores PreferNoSchedule taints when filtering', async () => {
    await createNodes(bed.client, node('n1', { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] }));
    bed.start();
    await createPods(bed.client, pod('p'));
    expect(await boundNode(bed.client, 'p')).toBe('n1');
  });
});

describe('nodeSelector', () => {
  it('places a pod only on a node with every selected label', async () => {
    await createNodes(bed.client, node('a', { labels: { disk: 'ssd', zone: 'z1' } }), node('b', { labels: { disk: 'ssd', zone: 'z2' } }));
    bed.start();
    await createPods(bed.client, pod('p', { nodeSelector: { disk: 'ssd', zone: 'z2' } }), pod('none', { nodeSelector: { disk: 'hdd' } }));
    expect(await boundNode(bed.client, 'p')).toBe('b');
    await expectUnschedulable('none', "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
  });
});

describe('required node affinity', () => {
  const required = (...terms: unknown[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
  const expr = (key: string, operator: string, values?: string[]) => ({ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] });

  it.each([
    ['In', expr('zone', 'In', ['z2', 'z3']), 'b'],
    ['NotIn', expr('zone', 'NotIn', ['z1']), 'b'],
    ['Exists', expr('gpu', 'Exists'), 'b'],
    ['DoesNotExist', expr('gpu', 'DoesNotExist'), 'a'],
    ['Gt', expr('cores', 'Gt', ['8']), 'b'],
    ['Lt', expr('cores', 'Lt', ['8']), 'a'],
    ['matchFields metadata.name', { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }, 'b'],
  ])('%s selects the matching node', async (_name, term, expected) => {
    await createNodes(bed.client, node('a', { labels: { zone: 'z1', cores: '4' } }), node('b', { labels: { zone: 'z2', cores: '16', gpu: 'yes' } }));
    bed.start();
    await createPods(bed.client, pod('p', { affinity: required(term) }));
    expect(await boundNode(bed.client, 'p')).toBe(expected);
  });

  it('ORs the terms and ANDs the requirements of a term', async () => {
    await createNodes(bed.client, node('a', { labels: { zone: 'z1', disk: 'hdd' } }), node('b', { labels: { zone: 'z2', disk: 'ssd' } }));
    bed.start();
    const and = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }, { key: 'disk', operator: 'In', values: ['ssd'] }] };
    await createPods(bed.client, pod('and', { affinity: required(and) }), pod('or', { affinity: required(and, expr('disk', 'In', ['ssd'])) }));
    expect(await boundNode(bed.client, 'or')).toBe('b');
    await expectUnschedulable('and', "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
  });
});

describe('NodeResourcesFit', () => {
  it('counts the requests of pods bound to the node against its allocatable', async () => {
    await createNodes(bed.client, node('n1', { cpu: '2', memory: '4Gi' }));
    await createPods(bed.client, pod('bound', { cpu: '1500m', memory: '1Gi', nodeName: 'n1' }));
    bed.start();
    await createPods(bed.client, pod('fits', { cpu: '500m' }), pod('cpu', { cpu: '600m' }));
    expect(await boundNode(bed.client, 'fits')).toBe('n1');
    await expectUnschedulable('cpu', '0/1 nodes are available: 1 Insufficient cpu.');
  });

  it('reports every resource that is short: memory, ephemeral-storage, an extended resource', async () => {
    await createNodes(bed.client, node('n1', { memory: '1Gi', extra: { 'example.com/gpu': '1' } }));
    bed.start();
    await createPods(
      bed.client,
      pod('gpu', { requests: { 'example.com/gpu': '1' } }),
      pod('short', { memory: '2Gi', requests: { 'ephemeral-storage': '200Gi', 'example.com/fpga': '1' } }),
    );
    expect(await boundNode(bed.client, 'gpu')).toBe('n1');
    // The "count reason" entries are sorted as strings, as kube-scheduler sorts them.
    await expectUnschedulable('short', '0/1 nodes are available: 1 Insufficient ephemeral-storage, 1 Insufficient example.com/fpga, 1 Insufficient memory.');
  });

  it('counts the largest init container and the overhead, as Kubernetes computes a pod request', async () => {
    await createNodes(bed.client, node('n1', { cpu: '2' }));
    bed.start();
    const p = pod('init', { cpu: '500m' });
    p.spec.initContainers = [{ name: 'i', image: 'busybox', resources: { requests: { cpu: '2500m' } } }];
    const o = pod('overhead', { cpu: '1900m' });
    o.spec.overhead = { cpu: '200m' };
    const ok = pod('ok', { cpu: '1' });
    ok.spec.initContainers = [{ name: 'i', image: 'busybox', resources: { requests: { cpu: '2' } } }];
    await createPods(bed.client, p, o);
    await expectUnschedulable('init', '0/1 nodes are available: 1 Insufficient cpu.');
    await expectUnschedulable('overhead', '0/1 nodes are available: 1 Insufficient cpu.');
    await createPods(bed.client, ok);
    expect(await boundNode(bed.client, 'ok')).toBe('n1');
  });

  it('keeps within the node\'s allocatable pods ("Too many pods")', async () => {
    await createNodes(bed.client, node('n1', { pods: '2' }));
    await createPods(bed.client, pod('bound', { nodeName: 'n1' }));
    bed.start();
    await createPods(bed.client, pod('second'));
    expect(await boundNode(bed.client, 'second')).toBe('n1');
    await createPods(bed.client, pod('third'));
    await expectUnschedulable('third', '0/1 nodes are available: 1 Too many pods.');
  });
});

describe('NodePorts', () => {
  it('does not place a pod whose host port is taken on the node', async () => {
    await createNodes(bed.client, node('n1'));
    await createPods(bed.client, pod('web', { hostPort: 8080, nodeName: 'n1' }));
    bed.start();
    await createPods(bed.client, pod('clash', { hostPort: 8080 }), pod('clash-ip', { hostPort: 8080, hostIP: '10.0.0.1' }));
    const message = "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.";
    await expectUnschedulable('clash', message);
    await expectUnschedulable('clash-ip', message);
  });
  it('places pods on another port, another protocol, or another host IP', async () => {
    await createNodes(bed.client, node('n1'));
    await createPods(bed.client, pod('web', { hostPort: 8080, hostIP: '10.0.0.1', nodeName: 'n1' }));
    bed.start();
    await createPods(bed.client, pod('port', { hostPort: 8081 }), pod('udp', { hostPort: 8080, protocol: 'UDP' }), pod('ip', { hostPort: 8080, hostIP: '10.0.0.2' }));
    for (const name of ['port', 'udp', 'ip']) expect(await boundNode(bed.client, name)).toBe('n1');
  });
});

describe('scheduling gates', () => {
  it('leaves a pod with scheduling gates alone, and schedules it once the last gate is removed', async () => {
    await createNodes(bed.client, node('n1'));
    const running = bed.start();
    const gated = pod('gated');
    gated.spec.schedulingGates = [{ name: 'example.com/quota' }];
    await createPods(bed.client, gated, pod('free'));
    expect(await boundNode(bed.client, 'free')).toBe('n1');
    expect(running.results.some((r) => r.pod === 'default/gated')).toBe(false);
    await bed.client.patch(builtin.pods, 'gated', [{ op: 'remove', path: '/spec/schedulingGates' }], { type: 'json' });
    expect(await boundNode(bed.client, 'gated')).toBe('n1');
  });
});

describe('scheduler names', () => {
  it('takes default-scheduler and svc-scheduler pods and leaves pods of other schedulers alone', async () => {
    await createNodes(bed.client, node('n1'));
    const running = bed.start();
    await createPods(bed.client, pod('mine', { schedulerName: 'svc-scheduler' }), pod('default'), pod('theirs', { schedulerName: 'other' }));
    expect(await boundNode(bed.client, 'mine')).toBe('n1');
    expect(await boundNode(bed.client, 'default')).toBe('n1');
    expect(running.results.some((r) => r.pod === 'default/theirs')).toBe(false);
    expect((await bed.client.get(builtin.pods, 'theirs')).spec.nodeName).toBeUndefined();
  });
});
