import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../../controllers/scheduler/event-recorder.js';
import { pod } from './support.js';

describe('EventRecorder', () => {
  it('sends at most inFlight at once, keeps order, and drops what overflows the buffer', async () => {
    const releases: (() => void)[] = [];
    const sent: string[] = [];
    let running = 0;
    let peak = 0;
    const recorder = new EventRecorder(
      async (_pod, _type, reason) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => releases.push(r));
        sent.push(reason);
        running--;
      },
      { buffer: 3, inFlight: 2 },
    );
    for (let i = 0; i < 7; i++) recorder.record(pod('p'), 'Normal', `e${i}`, '');
    // 2 in flight, 3 buffered, 2 dropped.
    expect(recorder.dropped).toBe(2);
    while (sent.length < 5) {
      await new Promise((r) => setTimeout(r, 1));
      releases.splice(0).forEach((r) => r());
    }
    expect(sent.sort()).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(peak).toBe(2);
  });

  it('counts failures and goes on', async () => {
    const recorder = new EventRecorder(async (_p, _t, reason) => {
      if (reason === 'bad') throw new Error('refused');
    });
    recorder.record(pod('p'), 'Warning', 'bad', '');
    recorder.record(pod('p'), 'Normal', 'good', '');
    await new Promise((r) => setTimeout(r, 5));
    expect([recorder.failed, recorder.sent]).toEqual([1, 1]);
  });
});
