import { afterEach, describe, expect, it } from 'vitest';
import { podInfo, SchedulingQueue } from '../../../controllers/scheduler/index.js';
import { pod } from './support.js';

const info = (name: string, priority?: number, created?: string) => {
  const p = pod(name, priority !== undefined ? { priority } : {});
  if (created) p.metadata.creationTimestamp = created;
  return podInfo(p);
};

let queue: SchedulingQueue | undefined;
afterEach(() => queue?.close());

describe('SchedulingQueue', () => {
  it('pops by priority, then creation time, then arrival', async () => {
    queue = new SchedulingQueue();
    queue.add(info('late', 0, '2026-01-01T00:00:02Z'));
    queue.add(info('early', 0, '2026-01-01T00:00:01Z'));
    queue.add(info('urgent', 100, '2026-01-01T00:00:09Z'));
    queue.add(info('same-a', -1, '2026-01-01T00:00:00Z'));
    queue.add(info('same-b', -1, '2026-01-01T00:00:00Z'));
    const order: string[] = [];
    for (let i = 0; i < 5; i++) order.push((await queue.pop())!.info.key);
    expect(order).toEqual(['default/urgent', 'default/early', 'default/late', 'default/same-a', 'default/same-b']);
  });

  it('coalesces a pod added twice and forgets a deleted one', async () => {
    queue = new SchedulingQueue();
    queue.add(info('a'));
    queue.add(info('a'));
    queue.add(info('b'));
    queue.delete('default/b');
    expect(queue.sizes.active).toBe(1);
    expect((await queue.pop())!.info.key).toBe('default/a');
  });

  it('doubles the back-off per failed attempt up to the maximum', () => {
    queue = new SchedulingQueue({ initialBackoffMs: 1000, maxBackoffMs: 10_000 });
    expect([1, 2, 3, 4, 5, 6].map((n) => queue!.backoffFor(n))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('parks an unschedulable pod until the cluster changes, then runs it after its back-off', async () => {
    let now = 0;
    queue = new SchedulingQueue({ initialBackoffMs: 30, now: () => now });
    queue.add(info('p'));
    const first = (await queue.pop())!;
    queue.requeueFailed(first.info.key, queue.cycle, true);
    expect(queue.sizes).toEqual({ active: 0, backoff: 0, unschedulable: 1 });
    queue.moveAllToActive();
    // Still backing off: it waits in back-off, not active.
    expect(queue.sizes).toEqual({ active: 0, backoff: 1, unschedulable: 0 });
    now = 30;
    const again = (await queue.pop())!;
    expect(again.info.key).toBe('default/p');
    expect(again.attempts).toBe(1);
  });

  it('sends a pod to back-off, not to the unschedulable pods, when the cluster changed while it was tried', async () => {
    queue = new SchedulingQueue({ initialBackoffMs: 5 });
    queue.add(info('p'));
    const popped = (await queue.pop())!;
    const cycle = queue.cycle;
    queue.moveAllToActive(); // a node was added while the pod was being tried
    queue.requeueFailed(popped.info.key, cycle, true);
    expect(queue.sizes).toEqual({ active: 0, backoff: 1, unschedulable: 0 });
    expect((await queue.pop())!.info.key).toBe('default/p');
  });

  it('wakes an unschedulable pod whose spec changed, but not for a status-only change', () => {
    queue = new SchedulingQueue({ initialBackoffMs: 0 });
    queue.add(info('p'));
    void queue.pop().then((q) => queue!.requeueFailed(q!.info.key, queue!.cycle, true));
    return Promise.resolve().then(() => {
      expect(queue!.sizes.unschedulable).toBe(1);
      queue!.add(info('p'), false);
      expect(queue!.sizes.unschedulable).toBe(1);
      queue!.add(info('p'), true);
      expect(queue!.sizes.unschedulable).toBe(0);
      expect(queue!.sizes.active).toBe(1);
    });
  });

  it('resolves pending pops with undefined when closed', async () => {
    queue = new SchedulingQueue();
    const waiting = queue.pop();
    queue.close();
    expect(await waiting).toBeUndefined();
  });
});
