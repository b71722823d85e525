import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FairQueues, type RejectReason } from '../../../src/apiserver/flowcontrol/index.js';

/** A queued request that records what it was told, in order, into `log`. */
function waiter(log: string[], name: string, gone = false) {
  return {
    admit: () => {
      if (gone) return false;
      log.push(`${name} admitted`);
      return true;
    },
    reject: (reason: RejectReason) => void log.push(`${name} ${reason}`),
  };
}

describe('FairQueues', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('admits at once while seats are free, then queues', () => {
    const queues = new FairQueues({ seats: 2, queueLength: 5, queueWaitMs: 1000 });
    expect(queues.tryAdmit()).toBe(true);
    expect(queues.tryAdmit()).toBe(true);
    expect(queues.tryAdmit()).toBe(false);
    expect(queues.busy).toBe(2);
  });

  it('gives freed seats to the flows in turn, so a quiet flow waits behind one request of a noisy one', () => {
    const log: string[] = [];
    const queues = new FairQueues({ seats: 1, queueLength: 10, queueWaitMs: 1000 });
    expect(queues.tryAdmit()).toBe(true);
    for (let i = 1; i <= 4; i++) expect(queues.enqueue('noisy', waiter(log, `noisy-${i}`))).toBe(true);
    expect(queues.enqueue('quiet', waiter(log, 'quiet-1'))).toBe(true);
    for (let i = 0; i < 5; i++) queues.release();
    expect(log).toEqual(['noisy-1 admitted', 'quiet-1 admitted', 'noisy-2 admitted', 'noisy-3 admitted', 'noisy-4 admitted']);
  });

  it('refuses a request when its own flow\'s queue is full, not when another\'s is', () => {
    const rejected: RejectReason[] = [];
    const queues = new FairQueues({ seats: 1, queueLength: 2, queueWaitMs: 1000 });
    queues.onReject = (reason) => rejected.push(reason);
    queues.tryAdmit();
    const log: string[] = [];
    expect(queues.enqueue('noisy', waiter(log, 'a'))).toBe(true);
    expect(queues.enqueue('noisy', waiter(log, 'b'))).toBe(true);
    expect(queues.enqueue('noisy', waiter(log, 'c'))).toBe(false);
    expect(queues.enqueue('quiet', waiter(log, 'd'))).toBe(true);
    expect(rejected).toEqual(['queue-full']);
  });

  it('refuses a request that waited longer than queueWaitMs, and keeps the others queued', () => {
    const log: string[] = [];
    const queues = new FairQueues({ seats: 1, queueLength: 5, queueWaitMs: 1000 });
    queues.tryAdmit();
    queues.enqueue('a', waiter(log, 'first'));
    vi.advanceTimersByTime(500);
    queues.enqueue('b', waiter(log, 'second'));
    vi.advanceTimersByTime(500);
    expect(log).toEqual(['first time-out']);
    expect(queues.waiting).toBe(1);
    queues.release();
    expect(log).toEqual(['first time-out', 'second admitted']);
    vi.advanceTimersByTime(5000);
    expect(log).toEqual(['first time-out', 'second admitted']);
  });

  it('passes the seat on when the admitted request is gone', () => {
    const log: string[] = [];
    const queues = new FairQueues({ seats: 1, queueLength: 5, queueWaitMs: 1000 });
    queues.tryAdmit();
    queues.enqueue('a', waiter(log, 'left', true));
    queues.enqueue('b', waiter(log, 'stayed'));
    queues.release();
    expect(log).toEqual(['stayed admitted']);
    expect(queues.busy).toBe(1);
  });

  it('has no limit with 0 seats', () => {
    const queues = new FairQueues({ seats: 0, queueLength: 1, queueWaitMs: 1000 });
    for (let i = 0; i < 1000; i++) expect(queues.tryAdmit()).toBe(true);
  });
});
