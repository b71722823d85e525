import { describe, expect, it } from 'vitest';
import { podInfo, SchedulerCache } from '../../../controllers/scheduler/index.js';
import { node, pod } from './support.js';

describe('SchedulerCache', () => {
  it('counts an assumed pod on its node at once, and forgets it when its binding fails', () => {
    const cache = new SchedulerCache();
    cache.upsertNode(node('n1'));
    const p = podInfo(pod('p', { cpu: '500m', hostPort: 80 }));
    cache.assume(p, 'n1');
    expect(cache.node('n1')!.requested.get('cpu')).toBe(500);
    expect(cache.node('n1')!.portConflicts({ ip: '0.0.0.0', protocol: 'TCP', port: 80 })).toBe(true);
    cache.forget(p.key);
    expect(cache.node('n1')!.requested.get('cpu')).toBeUndefined();
    expect(cache.node('n1')!.podCount).toBe(0);
    expect(cache.node('n1')!.portConflicts({ ip: '0.0.0.0', protocol: 'TCP', port: 80 })).toBe(false);
  });

  it('keeps a pod the API server confirmed, even if forget comes after', () => {
    const cache = new SchedulerCache();
    cache.upsertNode(node('n1'));
    cache.assume(podInfo(pod('p', { cpu: '1' })), 'n1');
    cache.upsertBoundPod(pod('p', { cpu: '1', nodeName: 'n1' }));
    expect(cache.isAssumed('default/p')).toBe(false);
    cache.forget('default/p');
    expect(cache.node('n1')!.requested.get('cpu')).toBe(1000);
    expect(cache.node('n1')!.podCount).toBe(1);
  });

  it('moves an assumed pod the API server bound elsewhere', () => {
    const cache = new SchedulerCache();
    cache.upsertNode(node('n1'));
    cache.upsertNode(node('n2'));
    cache.assume(podInfo(pod('p', { cpu: '1' })), 'n1');
    cache.upsertBoundPod(pod('p', { cpu: '1', nodeName: 'n2' }));
    expect(cache.node('n1')!.podCount).toBe(0);
    expect(cache.node('n2')!.requested.get('cpu')).toBe(1000);
  });

  it('frees what a finished or deleted pod held, and never counts a pod twice', () => {
    const cache = new SchedulerCache();
    cache.upsertNode(node('n1'));
    const done = pod('done', { cpu: '1', nodeName: 'n1' });
    cache.upsertBoundPod(done);
    cache.upsertBoundPod(done);
    expect(cache.node('n1')!.requested.get('cpu')).toBe(1000);
    cache.upsertBoundPod({ ...done, status: { phase: 'Succeeded' } });
    expect(cache.node('n1')!.podCount).toBe(0);
    const gone = pod('gone', { cpu: '2', nodeName: 'n1' });
    cache.upsertBoundPod(gone);
    cache.removeBoundPod(gone);
    expect(cache.node('n1')!.requested.size).toBe(0);
  });

  it('keeps the pods of a deleted node until they go, and lists only nodes that exist', () => {
    const cache = new SchedulerCache();
    cache.upsertNode(node('n1'));
    cache.upsertNode(node('n2'));
    cache.upsertBoundPod(pod('p', { nodeName: 'n1' }));
    cache.removeNode('n1');
    expect(cache.nodeNames()).toEqual(['n2']);
    expect(cache.node('n1')).toBeUndefined();
    expect(cache.has('default/p')).toBe(true);
    cache.upsertNode(node('n1'));
    expect(cache.node('n1')!.podCount).toBe(1);
  });
});
