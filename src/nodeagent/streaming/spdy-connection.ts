/**
 * A SPDY/3.1 session over any byte Duplex (a TCP/TLS socket after an `Upgrade: SPDY/3.1`, or a
 * WebSocket's byte stream when kubectl tunnels SPDY through it). Each stream is a Node Duplex, so
 * forwarding is `pipe`, with backpressure.
 *
 * Flow control: every DATA byte the application consumes is returned to the peer in WINDOW_UPDATE
 * frames, so a sender that honours SPDY/3.1 windows never stalls. Outgoing DATA does not wait for
 * the peer's window: moby/spdystream, which kubectl and the kubelet use, never sends
 * WINDOW_UPDATE, and waiting would stall every transfer at 64 KiB. What bounds memory instead is
 * the transport: a stream whose reader is slow pauses reading the whole connection (as spdystream
 * does), and writes wait for the transport to drain.
 */
import { EventEmitter } from 'node:events';
import { StatusError } from '../../api/index.js';
import type { Duplex } from 'node:stream';
import { FrameParser, GoAwayStatus, RstStatus, encodeGoAway, encodePing, encodeRstStream, encodeSynStream, type Frame } from './spdy-frames.js';
import { HeaderCompressor, HeaderDecompressor } from './spdy-headers.js';
import { SpdyStream, type HeaderValues, type StreamSession } from './spdy-stream.js';

const DEFAULT_MAX_STREAMS = 1000;

export interface SpdyConnectionOptions {
  /** `server` accepts odd (client) stream ids and opens even ones; `client` the reverse. */
  readonly role: 'server' | 'client';
  /** Largest frame accepted from the peer (default 1 MiB). */
  readonly maxFrameBytes?: number;
  /** Streams open at once; more are refused with RST_STREAM REFUSED_STREAM (default 1000). */
  readonly maxStreams?: number;
  /** Called on every frame in or out: the idle timer's hook. */
  readonly onActivity?: () => void;
}


export interface SpdyConnectionEvents {
  /** A stream the peer opened. Call `reply()` (or `reset()`) on it. */
  stream: [SpdyStream];
  goaway: [number];
  close: [Error | undefined];
}

export class SpdyConnection extends EventEmitter<SpdyConnectionEvents> implements StreamSession {
  private readonly parser: FrameParser;
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private readonly pausedBy = new Set<SpdyStream>();
  private readonly inbox: Frame[] = [];
  private readonly maxStreams: number;
  private processing = false;
  private headerBusy = false;
  private sendQueue: Promise<void> = Promise.resolve();
  private pendingHeaderFrames = 0;
  private lastPeerStreamId = 0;
  private nextStreamId: number;
  private goingAway = false;
  private closing = false;
  private closed = false;

  constructor(
    private readonly transport: Duplex,
    private readonly options: SpdyConnectionOptions,
  ) {
    super();
    this.parser = new FrameParser({ maxFrameBytes: options.maxFrameBytes });
    this.maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
    this.nextStreamId = options.role === 'client' ? 1 : 2;
    transport.on('data', (chunk: Buffer) => this.onData(chunk));
    transport.on('end', () => this.shutdown(undefined));
    transport.on('close', () => this.shutdown(undefined));
    transport.on('error', (error: Error) => this.shutdown(error));
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Opens a stream (SYN_STREAM). */
  openStream(headers: HeaderValues, options: { fin?: boolean } = {}): SpdyStream {
    if (this.closed || this.goingAway) throw new StatusError({ reason: 'ServiceUnavailable', message: 'the SPDY connection is closing: no new streams' });
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const names = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), typeof v === 'string' ? [v] : [...v]]));
    const stream = new SpdyStream(this, id, names, true);
    this.streams.set(id, stream);
    this.sendHeaderFrame((block) => encodeSynStream(id, block, { fin: options.fin }), headers);
    if (options.fin) stream.end();
    return stream;
  }

  ping(id: number): void {
    this.sendFrame(encodePing(id));
  }

  /** Says no more streams will be accepted (GOAWAY) and ends the transport once the frames are out. */
  close(status: number = GoAwayStatus.OK): void {
    if (this.closed || this.closing) return;
    this.closing = true;
    this.goingAway = true;
    this.sendFrame(encodeGoAway(this.lastPeerStreamId, status));
    void this.sendQueue.then(() => this.transport.end());
  }

  destroy(error?: Error): void {
    this.transport.destroy(error);
    this.shutdown(error);
  }

  // ---- used by SpdyStream ----

  /** @internal */
  sendFrame(frame: Buffer): void {
    if (this.closed) return;
    this.options.onActivity?.();
    if (this.pendingHeaderFrames === 0) this.transport.write(frame);
    else this.sendQueue = this.sendQueue.then(() => void this.transport.write(frame));
  }

  /** @internal a frame carrying a header block: compressed in order, sent in order. */
  sendHeaderFrame(build: (block: Buffer) => Buffer, headers: HeaderValues): void {
    if (this.closed) return;
    this.pendingHeaderFrames++;
    this.sendQueue = this.sendQueue.then(async () => {
      try {
        const block = await this.compressor.compress(headers);
        if (!this.closed) this.transport.write(build(block));
      } catch (error) {
        this.destroy(error instanceof Error ? error : new Error(String(error)));
      } finally {
        this.pendingHeaderFrames--;
      }
    });
  }

  /** @internal calls back when what was written so far has left (or the transport is gone). */
  afterDrain(callback: () => void): void {
    void this.sendQueue.then(() => {
      if (this.closed || !this.transport.writableNeedDrain) callback();
      else {
        const done = (): void => {
          this.transport.off('drain', done);
          this.transport.off('close', done);
          callback();
        };
        this.transport.on('drain', done);
        this.transport.on('close', done);
      }
    });
  }

  /** @internal */
  pauseFor(stream: SpdyStream): void {
    this.pausedBy.add(stream);
    this.updateFlow();
  }

  /** @internal */
  resumeFor(stream: SpdyStream): void {
    if (this.pausedBy.delete(stream)) this.updateFlow();
  }

  /** @internal */
  forget(stream: SpdyStream): void {
    this.streams.delete(stream.id);
    this.resumeFor(stream);
  }

  // ---- receiving ----

  private updateFlow(): void {
    if (this.closed) return;
    if (this.headerBusy || this.pausedBy.size > 0) this.transport.pause();
    else this.transport.resume();
  }

  private onData(chunk: Buffer): void {
    this.options.onActivity?.();
    try {
      this.inbox.push(...this.parser.push(chunk));
    } catch (error) {
      this.sendFrame(encodeGoAway(this.lastPeerStreamId, GoAwayStatus.PROTOCOL_ERROR));
      this.transport.end();
      this.shutdown(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!this.processing) void this.process();
  }

  private async process(): Promise<void> {
    this.processing = true;
    try {
      for (let frame = this.inbox.shift(); frame && !this.closed; frame = this.inbox.shift()) {
        if (frame.type === 'syn_stream' || frame.type === 'syn_reply' || frame.type === 'headers') {
          this.headerBusy = true;
          this.updateFlow();
          try {
            const headers = frame.headerBlock.length === 0 ? new Map<string, string[]>() : await this.decompressor.decompress(frame.headerBlock);
            if (frame.type === 'syn_stream') this.onSynStream(frame.streamId, frame.fin, headers);
            else if (frame.fin) this.streams.get(frame.streamId)?.receive(Buffer.alloc(0), true);
          } finally {
            this.headerBusy = false;
            this.updateFlow();
          }
        } else {
          this.handle(frame);
        }
      }
    } catch (error) {
      // A header block that does not inflate poisons the shared zlib context: the session is over.
      this.sendFrame(encodeGoAway(this.lastPeerStreamId, GoAwayStatus.PROTOCOL_ERROR));
      this.transport.end();
      this.shutdown(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.processing = false;
    }
  }

  private peerOwns(id: number): boolean {
    return this.options.role === 'server' ? id % 2 === 1 : id % 2 === 0;
  }

  private onSynStream(id: number, fin: boolean, headers: Map<string, string[]>): void {
    if (id === 0 || !this.peerOwns(id) || id <= this.lastPeerStreamId) {
      this.sendFrame(encodeRstStream(id, this.streams.has(id) ? RstStatus.STREAM_IN_USE : RstStatus.PROTOCOL_ERROR));
      return;
    }
    this.lastPeerStreamId = id;
    if (this.goingAway || this.streams.size >= this.maxStreams) {
      this.sendFrame(encodeRstStream(id, RstStatus.REFUSED_STREAM));
      return;
    }
    const stream = new SpdyStream(this, id, headers, false);
    this.streams.set(id, stream);
    if (fin) stream.receive(Buffer.alloc(0), true);
    this.emit('stream', stream);
  }

  private handle(frame: Frame): void {
    switch (frame.type) {
      case 'data': {
        const stream = this.streams.get(frame.streamId);
        if (stream) stream.receive(frame.data, frame.fin);
        else this.sendFrame(encodeRstStream(frame.streamId, RstStatus.INVALID_STREAM));
        return;
      }
      case 'rst_stream':
        this.streams.get(frame.streamId)?.peerReset(frame.status);
        return;
      case 'ping':
        // Echo the peer's pings; ours coming back (our parity) need nothing.
        if (this.peerOwns(frame.id)) this.sendFrame(encodePing(frame.id));
        return;
      case 'goaway':
        this.goingAway = true;
        this.emit('goaway', frame.status);
        return;
      // INITIAL_WINDOW_SIZE and WINDOW_UPDATE size the peer's windows; svc does not wait on them (see top).
      case 'settings':
      case 'window_update':
      case 'unknown':
        return;
    }
  }

  private shutdown(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of [...this.streams.values()]) stream.abandon();
    this.streams.clear();
    this.pausedBy.clear();
    this.compressor.close();
    this.decompressor.close();
    if (!this.transport.destroyed && error) this.transport.destroy();
    this.emit('close', error);
  }
}
