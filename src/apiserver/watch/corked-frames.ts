import type { Writable } from 'node:stream';
import { COALESCE_BYTES, type WritePacing } from './write-hold.js';

/**
 * The cork of a watch whose frames are several writes each (a head, the version's shared bytes, a
 * tail: never copied per watcher): its frames wait under one cork and leave together in one
 * socket write (one TLS record) when `pacing` says — at the end of the tick, or of the hold of a
 * busy watch (write-hold.ts). More than COALESCE_BYTES held leave at once.
 */
export class CorkedFrames {
  private corked = false;
  private heldBytes = 0;
  private readonly uncorkLater = (out: Writable) => this.uncork(out);

  constructor(private readonly pacing: WritePacing) {}

  /** Before a frame's writes. */
  open(out: Writable): void {
    if (this.corked) return;
    this.corked = true;
    out.cork();
    this.pacing.schedule(this.uncorkLater, out);
  }

  /** After a frame's writes, `bytes` long. */
  close(out: Writable, bytes: number): void {
    this.heldBytes += bytes;
    if (this.heldBytes >= COALESCE_BYTES) this.uncork(out);
  }

  /** Writes what is held now (before a bookmark's or an error's own write leaves, or the end). */
  uncork(out: Writable): void {
    this.pacing.wrote();
    if (!this.corked) return;
    this.corked = false;
    this.heldBytes = 0;
    out.uncork();
  }
}
