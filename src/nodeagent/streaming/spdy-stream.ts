/**
 * One SPDY stream as a Node Duplex: DATA frames in are its readable side (FIN ends it), writes
 * go out as DATA frames of at most 16 KiB, `end()` sends FIN, `reset()` RST_STREAM. It returns
 * consumed bytes to the peer in WINDOW_UPDATEs and, when its reader falls behind, asks the
 * session to stop reading the transport (spdy-connection.ts says why).
 */
import { Duplex } from 'node:stream';
import { DEFAULT_WINDOW_SIZE, RstStatus, encodeData, encodeRstStream, encodeSynReply, encodeWindowUpdate } from './spdy-frames.js';

/** DATA frames svc writes carry at most this much (the 24-bit length would allow 16 MiB). */
const MAX_DATA_FRAME = 16 * 1024;

export type HeaderValues = Readonly<Record<string, string | readonly string[]>>;

/** What a stream needs of its session. */
export interface StreamSession {
  sendFrame(frame: Buffer): void;
  sendHeaderFrame(build: (block: Buffer) => Buffer, headers: HeaderValues): void;
  afterDrain(callback: () => void): void;
  pauseFor(stream: SpdyStream): void;
  resumeFor(stream: SpdyStream): void;
  forget(stream: SpdyStream): void;
}

export class SpdyStream extends Duplex {
  /** Headers of the SYN_STREAM that opened it, names lower case. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  /** Set when the peer reset the stream (RST_STREAM). */
  resetStatus: number | undefined;
  private remoteClosed = false;
  private localClosed = false;
  private unacknowledged = 0;
  private replied: boolean;

  constructor(
    private readonly session: StreamSession,
    readonly id: number,
    headers: ReadonlyMap<string, readonly string[]>,
    replied: boolean,
  ) {
    super({ allowHalfOpen: true, highWaterMark: 64 * 1024 });
    this.headers = headers;
    this.replied = replied;
  }

  /** The first value of a header, names compared case-insensitively. */
  header(name: string): string | undefined {
    return this.headers.get(name.toLowerCase())?.[0];
  }

  /** Accepts a stream the peer opened (SYN_REPLY). Writes before it send it first. */
  reply(headers: HeaderValues = {}): void {
    if (this.replied) return;
    this.replied = true;
    this.session.sendHeaderFrame((block) => encodeSynReply(this.id, block), headers);
  }

  /** Aborts the stream with RST_STREAM. */
  reset(status: number = RstStatus.CANCEL): void {
    if (this.destroyed) return;
    if (!(this.localClosed && this.remoteClosed)) this.session.sendFrame(encodeRstStream(this.id, status));
    this.localClosed = this.remoteClosed = true;
    this.destroy();
  }

  /** @internal a DATA frame for this stream arrived. */
  receive(data: Buffer, fin: boolean): void {
    if (this.remoteClosed) {
      this.reset(RstStatus.STREAM_ALREADY_CLOSED);
      return;
    }
    if (data.length > 0) {
      if (this.push(data)) this.acknowledge(data.length);
      else {
        this.unacknowledged += data.length;
        this.session.pauseFor(this);
      }
    }
    if (fin) {
      this.remoteClosed = true;
      this.push(null);
      this.finishIfDone();
    }
  }

  /** @internal the peer reset it. */
  peerReset(status: number): void {
    this.resetStatus = status;
    this.localClosed = this.remoteClosed = true;
    this.push(null);
    this.destroy();
  }

  /** @internal the session is gone. */
  abandon(): void {
    this.localClosed = this.remoteClosed = true;
    if (!this.readableEnded) this.push(null);
    this.destroy();
  }

  private acknowledge(bytes: number): void {
    this.unacknowledged += bytes;
    // Returning credit in halves of the window keeps WINDOW_UPDATEs few and the sender busy.
    if (this.unacknowledged >= DEFAULT_WINDOW_SIZE / 2 && !this.remoteClosed) {
      this.session.sendFrame(encodeWindowUpdate(this.id, this.unacknowledged));
      this.unacknowledged = 0;
    }
  }

  override _read(): void {
    this.session.resumeFor(this);
    if (this.unacknowledged > 0) this.acknowledge(0);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.localClosed) {
      callback(new Error(`SPDY stream ${this.id} is closed for writing`));
      return;
    }
    if (!this.replied) this.reply();
    for (let at = 0; at < chunk.length; at += MAX_DATA_FRAME) {
      this.session.sendFrame(encodeData(this.id, chunk.subarray(at, at + MAX_DATA_FRAME), false));
    }
    this.session.afterDrain(callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.localClosed) {
      if (!this.replied) this.reply();
      this.session.sendFrame(encodeData(this.id, Buffer.alloc(0), true));
      this.localClosed = true;
    }
    this.finishIfDone();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!(this.localClosed && this.remoteClosed)) {
      this.session.sendFrame(encodeRstStream(this.id, RstStatus.CANCEL));
      this.localClosed = this.remoteClosed = true;
    }
    this.session.forget(this);
    callback(error);
  }

  private finishIfDone(): void {
    if (this.localClosed && this.remoteClosed) this.session.forget(this);
  }
}
