/**
 * The write hold (src/apiserver/watch/write-hold.ts, docs/watch.md#write-interval): a busy watch's
 * frames wait until the interval since its last write is over and leave in one write; a frame
 * after a quiet spell leaves in its own turn. Writes are counted on a real Writable (each
 * `_write` / `_writev` is one write the socket would make); time is the fake clock's, advanced by
 * the test, so nothing here depends on how fast the machine is.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { builtinRegistry } from '../../../src/api/index.js';
import { negotiate, renderOptions, viewOptions, type Offer } from '../../../src/encoding/index.js';
import type { ServedObject } from '../../../src/apiserver/served-object.js';
import type { Frame, FrameEncoder } from '../../../src/apiserver/watch/frames.js';
import { eventStreamFrameEncoder } from '../../../src/apiserver/watch/event-stream-frames.js';
import { jsonFrameEncoder } from '../../../src/apiserver/watch/json-frames.js';
import { renderedFrameEncoder } from '../../../src/apiserver/watch/rendered-frames.js';
import { WriteHold, type WritePacing } from '../../../src/apiserver/watch/write-hold.js';

const pods = builtinRegistry().lookup('', 'v1', 'pods')!;
const offer: Offer = { target: 'watch', protobuf: true, cbor: true, views: true };
const INTERVAL_MS = 10;

/** A stream that counts the writes it is handed: a corked batch is one `_writev`. */
class CountingSink extends Writable {
  writes = 0;
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.writes++;
    // A copy: joined frames are written from a reused buffer (slab-pool.ts), refilled once this write is done.
    this.chunks.push(Buffer.from(chunk));
    done();
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.writes++;
    for (const { chunk } of chunks) this.chunks.push(Buffer.from(chunk));
    done();
  }

  /** The pod names in what was written, in order (each name is in its frame's bytes once). */
  names(): string[] {
    const text = Buffer.concat(this.chunks).toString('latin1');
    return [...text.matchAll(/hold-pod-\d{4}/g)].map((match) => match[0]);
  }
}

function event(i: number, blob = ''): Frame {
  const name = `hold-pod-${String(i).padStart(4, '0')}`;
  const json = Buffer.from(
    JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: String(100 + i), annotations: { blob } }, spec: { containers: [{ name: 'c', image: 'i' }] } }),
  );
  const object: ServedObject = { json, namespace: 'default', name, labels: {}, fields: [] };
  return { type: 'MODIFIED', revision: 100 + i, object: { key: `/registry/pods/default/${name}`, revision: 100 + i, object, bytes: () => json } };
}

const names = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => `hold-pod-${String(from + k).padStart(4, '0')}`);

const encoders: Record<string, (pacing: WritePacing) => FrameEncoder> = {
  'protobuf (rendered frames)': (pacing) => {
    const rep = negotiate('application/vnd.kubernetes.protobuf;type=watch', offer);
    return renderedFrameEncoder(renderOptions(rep, pods, 'v1', viewOptions(rep, pods, true), false), pacing);
  },
  'JSON lines': (pacing) => jsonFrameEncoder(pods, pacing),
  'an event stream': (pacing) => eventStreamFrameEncoder(pods, pacing),
};

/** The end of this loop turn: the ticks' flushes have run, no timer has. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe.each(Object.entries(encoders))('a watch written as %s', (_, encoderOf) => {
  it('sends events of separate turns within one interval in fewer writes, all in order', async () => {
    const hold = new WriteHold(INTERVAL_MS);
    const pacing = hold.pacing();
    pacing.live = true;
    const encoder = encoderOf(pacing);
    const out = new CountingSink();
    // The first event of a quiet watch leaves in its turn, before any timer could fire.
    encoder.write(out, event(1));
    await nextTurn();
    expect(out.writes).toBe(1);
    expect(out.names()).toEqual(names(1, 1));
    // Eight more, each committed in a turn of its own, 1 ms apart: held.
    for (let i = 2; i <= 9; i++) {
      vi.advanceTimersByTime(1);
      encoder.write(out, event(i));
      await nextTurn();
    }
    expect(out.writes).toBe(1);
    // The interval since the first write is over: the eight leave together.
    vi.advanceTimersByTime(INTERVAL_MS);
    await nextTurn();
    expect(out.writes).toBe(2);
    expect(out.names()).toEqual(names(1, 9));
    // After a quiet spell the next event leaves in its turn again.
    vi.advanceTimersByTime(5 * INTERVAL_MS);
    encoder.write(out, event(10));
    await nextTurn();
    expect(out.writes).toBe(3);
    expect(out.names()).toEqual(names(1, 10));
  });

  it('with the interval at 0 writes each turn’s events at the end of that turn, as before', async () => {
    const pacing = new WriteHold(0).pacing();
    pacing.live = true;
    const encoder = encoderOf(pacing);
    const out = new CountingSink();
    for (let i = 1; i <= 6; i++) {
      vi.advanceTimersByTime(1);
      encoder.write(out, event(i));
      await nextTurn();
      expect(out.writes).toBe(i);
    }
    // Two in one turn still leave together.
    encoder.write(out, event(7));
    encoder.write(out, event(8));
    await nextTurn();
    expect(out.writes).toBe(7);
    expect(out.names()).toEqual(names(1, 8));
  });

  it('does not hold the replay: a watch not yet live writes each turn’s frames at once', async () => {
    const pacing = new WriteHold(60_000).pacing();
    const encoder = encoderOf(pacing);
    const out = new CountingSink();
    for (let i = 1; i <= 4; i++) {
      encoder.write(out, event(i));
      await nextTurn();
    }
    expect(out.writes).toBe(4);
    expect(out.names()).toEqual(names(1, 4));
  });

  it('sends a bookmark at once, after what was held before it, and flushes what is held when the watch ends', async () => {
    const pacing = new WriteHold(60_000).pacing();
    pacing.live = true;
    const encoder = encoderOf(pacing);
    const out = new CountingSink();
    encoder.write(out, event(1));
    await nextTurn();
    encoder.write(out, event(2));
    await nextTurn();
    encoder.write(out, event(3));
    await nextTurn();
    expect(out.writes).toBe(1);
    encoder.write(out, { type: 'BOOKMARK', revision: 103 });
    expect(out.names()).toEqual(names(1, 3));
    const afterBookmark = out.writes;
    expect(afterBookmark).toBeGreaterThan(1);
    encoder.write(out, event(4));
    encoder.write(out, event(5));
    await nextTurn();
    expect(out.writes).toBe(afterBookmark);
    encoder.flush?.(out);
    expect(out.names()).toEqual(names(1, 5));
  });

  it('writes at once when the held bytes reach the coalescing bound', async () => {
    const pacing = new WriteHold(60_000).pacing();
    pacing.live = true;
    const encoder = encoderOf(pacing);
    const out = new CountingSink();
    encoder.write(out, event(1));
    await nextTurn();
    expect(out.writes).toBe(1);
    // 20 KiB events, one a turn: the fourth passes 64 KiB held.
    const blob = 'x'.repeat(20 * 1024);
    for (let i = 2; i <= 5; i++) {
      encoder.write(out, event(i, blob));
      await nextTurn();
    }
    expect(out.writes).toBe(2);
    expect(out.names()).toEqual(names(1, 5));
  });
});

describe('the write hold', () => {
  it('keeps one timer for all its held watches', async () => {
    const hold = new WriteHold(INTERVAL_MS);
    const watches = Array.from({ length: 50 }, () => {
      const pacing = hold.pacing();
      pacing.live = true;
      return { encoder: encoders['JSON lines']!(pacing), out: new CountingSink() };
    });
    for (const [i, { encoder, out }] of watches.entries()) encoder.write(out, event(i));
    await nextTurn();
    vi.advanceTimersByTime(1);
    for (const [i, { encoder, out }] of watches.entries()) encoder.write(out, event(100 + i));
    await nextTurn();
    expect(vi.getTimerCount()).toBe(1);
    expect(watches.map(({ out }) => out.writes)).toEqual(watches.map(() => 1));
    vi.advanceTimersByTime(INTERVAL_MS);
    expect(vi.getTimerCount()).toBe(0);
    expect(watches.map(({ out }) => out.writes)).toEqual(watches.map(() => 2));
  });

  it('refuses a negative interval', () => {
    expect(() => new WriteHold(-1)).toThrow(RangeError);
  });
});
