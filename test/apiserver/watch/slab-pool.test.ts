// The reused buffers watch streams join their frames in (src/apiserver/handlers/slab-pool.ts).
import { describe, expect, it } from 'vitest';
import { SlabPool } from '../../../src/apiserver/watch/slab-pool.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('SlabPool', () => {
  it('writes the parts joined, in order, as one chunk', () => {
    const pool = new SlabPool(16, 4);
    const chunks: Buffer[] = [];
    pool.writeJoined([bytes(1, 2), bytes(3), bytes(4, 5, 6)], 6, (chunk) => chunks.push(Buffer.from(chunk)));
    expect(chunks).toEqual([Buffer.from([1, 2, 3, 4, 5, 6])]);
  });

  it('reuses a buffer once its write has completed, and not before', () => {
    const pool = new SlabPool(16, 4);
    const written: Buffer[] = [];
    const dones: Array<(error?: Error | null) => void> = [];
    const write = (chunk: Buffer, done: (error?: Error | null) => void) => {
      written.push(chunk);
      dones.push(done);
    };
    pool.writeJoined([bytes(1), bytes(2)], 2, write);
    pool.writeJoined([bytes(3), bytes(4)], 2, write);
    // The first write is still in flight: the second one got a buffer of its own.
    expect(written[1]!.buffer).not.toBe(written[0]!.buffer);
    expect(Buffer.from(written[0]!)).toEqual(Buffer.from([1, 2]));
    dones[0]!();
    expect(pool.freeCount).toBe(1);
    pool.writeJoined([bytes(5), bytes(6)], 2, write);
    expect(written[2]!.buffer).toBe(written[0]!.buffer);
    expect(Buffer.from(written[2]!)).toEqual(Buffer.from([5, 6]));
  });

  it('does not reuse the buffer of a failed write', () => {
    const pool = new SlabPool(16, 4);
    pool.writeJoined([bytes(1), bytes(2)], 2, (_chunk, done) => done(new Error('socket closed')));
    expect(pool.freeCount).toBe(0);
  });

  it('gives a flush larger than a buffer one of its own, never pooled', () => {
    const pool = new SlabPool(4, 4);
    const chunks: Buffer[] = [];
    pool.writeJoined([bytes(1, 2, 3), bytes(4, 5, 6)], 6, (chunk, done) => {
      chunks.push(chunk);
      done();
    });
    expect(Buffer.from(chunks[0]!)).toEqual(Buffer.from([1, 2, 3, 4, 5, 6]));
    expect(pool.freeCount).toBe(0);
  });

  it('keeps at most maxFree buffers', () => {
    const pool = new SlabPool(8, 2);
    const dones: Array<() => void> = [];
    for (let i = 0; i < 5; i += 1) pool.writeJoined([bytes(i), bytes(i)], 2, (_chunk, done) => dones.push(() => done()));
    for (const done of dones) done();
    expect(pool.freeCount).toBe(2);
  });
});
