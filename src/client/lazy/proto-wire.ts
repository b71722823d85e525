import { internal, type StatusError } from '../../api/index.js';

/**
 * Readers of the protobuf wire format that walk a message's fields without decoding them: each
 * field is a tag (field number and wire type) and a value whose extent the wire type gives —
 * a varint, 8 or 4 bytes, or a length and that many bytes — so finding a field costs the fields
 * before it, not their contents. `BytesReader` reads a Buffer (a watch chunk, a list body);
 * `TextReader` reads a latin1 string (one character per byte: what the lazy cache keeps).
 */

/** What a reader stopped on: a field number, its wire type, and its value's extent. */
export interface WireField {
  field: number;
  wire: number;
  /** Where the field's tag starts (a field's bytes are [tagStart, end)). */
  tagStart: number;
  /** Where its value starts: past the length for a length-delimited field. */
  start: number;
  end: number;
}

/** The server sent bytes that are not the protobuf it says they are: its fault, a 500 here. */
export function malformedProtobuf(what: string): StatusError {
  return internal(new Error(`malformed protobuf from the server: ${what}`));
}

abstract class WireReader {
  pos: number;
  /** The field `next()` stopped on; one object reused for every field (no allocation per field). */
  readonly current: WireField = { field: 0, wire: 0, tagStart: 0, start: 0, end: 0 };

  end: number;

  constructor(start: number, end: number) {
    this.pos = start;
    this.end = end;
  }

  protected abstract byte(i: number): number;

  /** A varint of up to 53 bits (lengths, tags and the values the cache reads are far smaller). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      if (this.pos >= this.end) throw malformedProtobuf('a varint runs past the end of its message');
      const b = this.byte(this.pos++);
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw malformedProtobuf('a varint longer than 10 bytes');
  }

  /** Steps to the next field; false at the end of the message. */
  next(): boolean {
    if (this.pos >= this.end) return false;
    const f = this.current;
    f.tagStart = this.pos;
    const tag = this.varint();
    f.field = Math.floor(tag / 8);
    f.wire = tag & 7;
    switch (f.wire) {
      case 0:
        f.start = this.pos;
        this.varint();
        break;
      case 1:
        f.start = this.pos;
        this.pos += 8;
        break;
      case 2: {
        const length = this.varint();
        f.start = this.pos;
        this.pos += length;
        break;
      }
      case 5:
        f.start = this.pos;
        this.pos += 4;
        break;
      default:
        throw malformedProtobuf(`wire type ${f.wire} (field ${f.field}) is not one svc writes`);
    }
    if (this.pos > this.end || f.field === 0) throw malformedProtobuf(`field ${f.field} runs past the end of its message`);
    f.end = this.pos;
    return true;
  }
}

export class BytesReader extends WireReader {
  constructor(
    public bytes: Uint8Array,
    start = 0,
    end = bytes.length,
  ) {
    super(start, end);
  }

  /** Points this reader at another message (the hot path reuses its readers instead of making new ones). */
  reset(bytes: Uint8Array, start: number, end: number): this {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    return this;
  }

  protected byte(i: number): number {
    return this.bytes[i]!;
  }
}

export class TextReader extends WireReader {
  constructor(
    readonly text: string,
    start = 0,
    end = text.length,
  ) {
    super(start, end);
  }

  protected byte(i: number): number {
    return this.text.charCodeAt(i);
  }
}

/** The UTF-8 string stored as latin1 characters in `text[start, end)`. */
export function utf8Of(text: string, start: number, end: number): string {
  for (let i = start; i < end; i += 1) {
    // Not ASCII: the characters are UTF-8 bytes to be decoded.
    if (text.charCodeAt(i) >= 0x80) return Buffer.from(text.slice(start, end), 'latin1').toString('utf8');
  }
  return text.slice(start, end);
}
