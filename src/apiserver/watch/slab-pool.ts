/**
 * Reusable buffers for the coalesced writes of watch streams. Each flush of rendered frames is
 * copied into one buffer; with a new buffer per flush, a protobuf replay of 40,000 events wrote
 * ~50 MB of fresh buffers, memory V8 counts as external and answers with collections: in
 * bench:informer the server ran one or two full collections of its heap (every object and
 * history version) during such a stream, and its collector threads took a second core from the
 * client. A buffer comes back to the pool when its write has completed (the socket no longer
 * needs it), so a stream reuses a handful of them; the same replays then ran no collection at all.
 */
export class SlabPool {
  readonly #free: Buffer[] = [];

  constructor(
    /** Each buffer's size: a flush larger than this takes a buffer of its own. */
    readonly slabBytes: number,
    /** Free buffers kept; more than this are let go when they come back. */
    readonly maxFree: number,
  ) {}

  /**
   * Copies `parts` into one buffer and hands its filled part to `write`, with the callback that
   * returns the buffer to the pool (call it when the write completed, with its error if any).
   */
  writeJoined(parts: readonly Uint8Array[], bytes: number, write: (chunk: Buffer, done: (error?: Error | null) => void) => void): void {
    const slab = bytes <= this.slabBytes ? (this.#free.pop() ?? Buffer.allocUnsafeSlow(this.slabBytes)) : Buffer.allocUnsafeSlow(bytes);
    let at = 0;
    for (const part of parts) {
      slab.set(part, at);
      at += part.length;
    }
    write(slab.subarray(0, at), (error) => {
      // A failed write may still hold the chunk somewhere: that buffer is not reused.
      if (!error && slab.length === this.slabBytes && this.#free.length < this.maxFree) this.#free.push(slab);
    });
  }

  /** Free buffers held now (for tests). */
  get freeCount(): number {
    return this.#free.length;
  }
}
