import protobuf from 'protobufjs';
import { shortString } from './short-strings.js';

/**
 * protobufjs' reader of a Buffer, but its strings are the shared ones of short-strings.ts. The
 * generated decoders read every string (fields, repeated fields, map keys and values, nested
 * messages' too) through the reader's `string()`, and hand nested messages the same reader.
 */
class SharedStringReader extends protobuf.BufferReader {
  override string(): string {
    const length = this.uint32();
    const start = this.pos;
    const end = start + length;
    // protobufjs' Buffer reader cuts such a string short and reads on; its other readers throw.
    if (end > this.len) throw new RangeError(`index out of range: ${start} + ${length} > ${this.len}`);
    this.pos = end;
    return shortString(this.buf as Buffer, start, end);
  }
}

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** `type.decode(bytes)`, its short strings shared with every other message decoded so. */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): protobuf.Message {
  return type.decode(new SharedStringReader(asBuffer(bytes)));
}
