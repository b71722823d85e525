import { describe, expect, it } from 'vitest';
import { Trampoline } from '../../src/storage/index.js';

describe('Trampoline', () => {
  it('delivers what a delivery publishes after the item in hand, to every receiver in order', () => {
    const seen: string[] = [];
    const receivers = [
      (n: number) => {
        seen.push(`a${n}`);
        if (n === 1) trampoline.publish([2, 3]);
      },
      (n: number) => seen.push(`b${n}`),
    ];
    const trampoline = new Trampoline<number>((n) => receivers.forEach((receive) => receive(n)));
    trampoline.publish([1]);
    expect(seen).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('holds delivery back while `run` attaches, then delivers what was published meanwhile', () => {
    const seen: number[] = [];
    const trampoline = new Trampoline<number>((n) => seen.push(n));
    trampoline.run(() => {
      trampoline.publish([1, 2]);
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual([1, 2]);
    // Inside a delivery, `run` attaches at once and its items join the queue being drained.
    const nested = new Trampoline<number>((n) => {
      seen.push(n);
      if (n === 3) nested.run(() => nested.publish([4]));
    });
    nested.publish([3]);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('starts clean after a delivery throws', () => {
    const seen: number[] = [];
    const trampoline = new Trampoline<number>((n) => {
      if (n === 1) throw new Error('boom');
      seen.push(n);
    });
    expect(() => trampoline.publish([1, 2])).toThrow('boom');
    trampoline.publish([3]);
    expect(seen).toEqual([3]);
  });
});
