/**
 * SPDY/3.1 frames: what port-forward (and a runtime's exec over SPDY) needs. Control frames are
 * `1 | version(15) | type(16) | flags(8) | length(24) | payload`; data frames are
 * `0 | stream id(31) | flags(8) | length(24) | payload`. Header blocks stay compressed here
 * (spdy-headers.ts inflates them, in order, per connection).
 */
import { StatusError } from '../../api/index.js';

export const SPDY_VERSION = 3;

export const FrameType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes. */
export const RstStatus = {
  PROTOCOL_ERROR: 1,
  INVALID_STREAM: 2,
  REFUSED_STREAM: 3,
  UNSUPPORTED_VERSION: 4,
  CANCEL: 5,
  INTERNAL_ERROR: 6,
  FLOW_CONTROL_ERROR: 7,
  STREAM_IN_USE: 8,
  STREAM_ALREADY_CLOSED: 9,
  FRAME_TOO_LARGE: 11,
} as const;

export const GoAwayStatus = { OK: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2 } as const;

export const Setting = { MAX_CONCURRENT_STREAMS: 4, INITIAL_WINDOW_SIZE: 7 } as const;

export const DEFAULT_WINDOW_SIZE = 64 * 1024;

export type Frame =
  | { readonly type: 'data'; readonly streamId: number; readonly fin: boolean; readonly data: Buffer }
  | { readonly type: 'syn_stream'; readonly streamId: number; readonly associatedId: number; readonly priority: number; readonly fin: boolean; readonly unidirectional: boolean; readonly headerBlock: Buffer }
  | { readonly type: 'syn_reply'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Buffer }
  | { readonly type: 'headers'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Buffer }
  | { readonly type: 'rst_stream'; readonly streamId: number; readonly status: number }
  | { readonly type: 'settings'; readonly clear: boolean; readonly entries: readonly { readonly id: number; readonly flags: number; readonly value: number }[] }
  | { readonly type: 'ping'; readonly id: number }
  | { readonly type: 'goaway'; readonly lastGoodStreamId: number; readonly status: number }
  | { readonly type: 'window_update'; readonly streamId: number; readonly delta: number }
  /** A control frame type SPDY/3.1 does not define (or one svc ignores): skipped, as the spec says. */
  | { readonly type: 'unknown'; readonly frameType: number };

const HEADER_BYTES = 8;
const STREAM_ID_MASK = 0x7fffffff;

function protocolError(message: string): StatusError {
  return new StatusError({ reason: 'BadRequest', message: `SPDY protocol error: ${message}` });
}

function controlHeader(type: number, flags: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + length);
  out.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  out.writeUInt16BE(type, 2);
  out.writeUInt32BE(((flags & 0xff) << 24) | length, 4);
  return out;
}

export function encodeData(streamId: number, data: Uint8Array, fin: boolean): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + data.length);
  out.writeUInt32BE(streamId & STREAM_ID_MASK, 0);
  out.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
  out.set(data, HEADER_BYTES);
  return out;
}

export function encodeSynStream(streamId: number, headerBlock: Uint8Array, options: { fin?: boolean; unidirectional?: boolean; associatedId?: number; priority?: number } = {}): Buffer {
  const flags = (options.fin ? FLAG_FIN : 0) | (options.unidirectional ? FLAG_UNIDIRECTIONAL : 0);
  const out = controlHeader(FrameType.SYN_STREAM, flags, 10 + headerBlock.length);
  out.writeUInt32BE(streamId & STREAM_ID_MASK, 8);
  out.writeUInt32BE((options.associatedId ?? 0) & STREAM_ID_MASK, 12);
  out[16] = ((options.priority ?? 0) & 0x7) << 5;
  out[17] = 0; // slot
  out.set(headerBlock, 18);
  return out;
}

export function encodeSynReply(streamId: number, headerBlock: Uint8Array, fin = false): Buffer {
  const out = controlHeader(FrameType.SYN_REPLY, fin ? FLAG_FIN : 0, 4 + headerBlock.length);
  out.writeUInt32BE(streamId & STREAM_ID_MASK, 8);
  out.set(headerBlock, 12);
  return out;
}

export function encodeRstStream(streamId: number, status: number): Buffer {
  const out = controlHeader(FrameType.RST_STREAM, 0, 8);
  out.writeUInt32BE(streamId & STREAM_ID_MASK, 8);
  out.writeUInt32BE(status, 12);
  return out;
}

export function encodeSettings(entries: readonly { id: number; value: number; flags?: number }[], clear = false): Buffer {
  const out = controlHeader(FrameType.SETTINGS, clear ? 0x01 : 0, 4 + 8 * entries.length);
  out.writeUInt32BE(entries.length, 8);
  entries.forEach((entry, i) => {
    out.writeUInt32BE((((entry.flags ?? 0) & 0xff) << 24) | (entry.id & 0xffffff), 12 + 8 * i);
    out.writeUInt32BE(entry.value >>> 0, 16 + 8 * i);
  });
  return out;
}

export function encodePing(id: number): Buffer {
  const out = controlHeader(FrameType.PING, 0, 4);
  out.writeUInt32BE(id >>> 0, 8);
  return out;
}

export function encodeGoAway(lastGoodStreamId: number, status: number = GoAwayStatus.OK): Buffer {
  const out = controlHeader(FrameType.GOAWAY, 0, 8);
  out.writeUInt32BE(lastGoodStreamId & STREAM_ID_MASK, 8);
  out.writeUInt32BE(status, 12);
  return out;
}

export function encodeWindowUpdate(streamId: number, delta: number): Buffer {
  const out = controlHeader(FrameType.WINDOW_UPDATE, 0, 8);
  out.writeUInt32BE(streamId & STREAM_ID_MASK, 8);
  out.writeUInt32BE(delta & STREAM_ID_MASK, 12);
  return out;
}

export interface FrameParserOptions {
  /**
   * The largest frame payload accepted (default 1 MiB; the 24-bit length allows 16 MiB). A larger
   * frame is a protocol error rather than a buffer that grows with whatever the peer declares.
   */
  readonly maxFrameBytes?: number;
}

/**
 * Cuts a byte stream into frames. It holds at most one incomplete frame (bounded by
 * `maxFrameBytes`); payloads of complete frames are views into the received chunk, not copies,
 * unless a frame straddled two chunks.
 */
export class FrameParser {
  private pending: Buffer = Buffer.alloc(0);
  private readonly maxFrameBytes: number;

  constructor(options: FrameParserOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? 1024 * 1024;
  }

  /** Bytes held for a frame not complete yet. */
  get buffered(): number {
    return this.pending.length;
  }

  /** Appends received bytes and returns every frame now complete; throws a StatusError on a malformed one. */
  push(chunk: Buffer): Frame[] {
    let buffer = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Frame[] = [];
    while (buffer.length >= HEADER_BYTES) {
      const length = buffer.readUInt32BE(4) & 0xffffff;
      if (length > this.maxFrameBytes) throw protocolError(`frame of ${length} bytes is over the ${this.maxFrameBytes}-byte limit`);
      if (buffer.length < HEADER_BYTES + length) break;
      frames.push(parseFrame(buffer.subarray(0, HEADER_BYTES + length)));
      buffer = buffer.subarray(HEADER_BYTES + length);
    }
    // Keep a copy of a partial frame only: holding a view would pin the whole received chunk.
    this.pending = buffer.length === 0 ? Buffer.alloc(0) : Buffer.from(buffer);
    return frames;
  }
}

function parseFrame(bytes: Buffer): Frame {
  const first = bytes.readUInt32BE(0);
  const flags = bytes[4] as number;
  const payload = bytes.subarray(HEADER_BYTES);
  if ((first & 0x80000000) === 0) return { type: 'data', streamId: first & STREAM_ID_MASK, fin: (flags & FLAG_FIN) !== 0, data: payload };
  const version = (first >>> 16) & 0x7fff;
  if (version !== SPDY_VERSION) throw protocolError(`unsupported version ${version}`);
  const type = first & 0xffff;
  const need = (n: number): void => {
    if (payload.length < n) throw protocolError(`control frame ${type} is ${payload.length} bytes, needs ${n}`);
  };
  switch (type) {
    case FrameType.SYN_STREAM:
      need(10);
      return {
        type: 'syn_stream',
        streamId: payload.readUInt32BE(0) & STREAM_ID_MASK,
        associatedId: payload.readUInt32BE(4) & STREAM_ID_MASK,
        priority: (payload[8] as number) >>> 5,
        fin: (flags & FLAG_FIN) !== 0,
        unidirectional: (flags & FLAG_UNIDIRECTIONAL) !== 0,
        headerBlock: payload.subarray(10),
      };
    case FrameType.SYN_REPLY:
      need(4);
      return { type: 'syn_reply', streamId: payload.readUInt32BE(0) & STREAM_ID_MASK, fin: (flags & FLAG_FIN) !== 0, headerBlock: payload.subarray(4) };
    case FrameType.HEADERS:
      need(4);
      return { type: 'headers', streamId: payload.readUInt32BE(0) & STREAM_ID_MASK, fin: (flags & FLAG_FIN) !== 0, headerBlock: payload.subarray(4) };
    case FrameType.RST_STREAM:
      need(8);
      return { type: 'rst_stream', streamId: payload.readUInt32BE(0) & STREAM_ID_MASK, status: payload.readUInt32BE(4) };
    case FrameType.SETTINGS: {
      need(4);
      const count = payload.readUInt32BE(0);
      need(4 + 8 * count);
      const entries = [];
      for (let i = 0; i < count; i++) {
        const head = payload.readUInt32BE(4 + 8 * i);
        entries.push({ flags: head >>> 24, id: head & 0xffffff, value: payload.readUInt32BE(8 + 8 * i) });
      }
      return { type: 'settings', clear: (flags & 0x01) !== 0, entries };
    }
    case FrameType.PING:
      need(4);
      return { type: 'ping', id: payload.readUInt32BE(0) };
    case FrameType.GOAWAY:
      need(4);
      // SPDY/3 added the status; a 4-byte GOAWAY from an older peer means OK.
      return { type: 'goaway', lastGoodStreamId: payload.readUInt32BE(0) & STREAM_ID_MASK, status: payload.length >= 8 ? payload.readUInt32BE(4) : GoAwayStatus.OK };
    case FrameType.WINDOW_UPDATE:
      need(8);
      return { type: 'window_update', streamId: payload.readUInt32BE(0) & STREAM_ID_MASK, delta: payload.readUInt32BE(4) & STREAM_ID_MASK };
    default:
      return { type: 'unknown', frameType: type };
  }
}
