import { secondsTime } from '../../encoding/index.js';
import { TextReader } from './proto-wire.js';

/** Go's zero time (0001-01-01T00:00:00Z) in Unix seconds: JSON leaves it out, as convert.ts does. */
const GO_ZERO_TIME_SECONDS = -62135596800;

/** A varint read directly: not one of the plain cases below (negative, longer than 7 bytes), the caller decodes the slow way. */
const UNUSUAL = -1;

/** The non-negative varint in `text[start, end)` when it takes at most 7 bytes (< 2^49), else UNUSUAL. */
function smallVarint(text: string, start: number, end: number): number {
  if (end - start > 7) return UNUSUAL;
  let result = 0;
  let scale = 1;
  for (let i = start; i < end; i += 1) {
    result += (text.charCodeAt(i) & 0x7f) * scale;
    scale *= 128;
  }
  return result;
}

/**
 * The JSON of a `Time` (RFC 3339, seconds) or `MicroTime` (RFC 3339, microseconds) message in
 * `text[start, end)` — `{1: seconds int64, 2: nanos int32}` — read straight off the wire, as
 * convert.ts's conversion writes it: undefined for the zero time (JSON leaves it out). A view
 * reads a node Lease's `renewTime` this way once per renewal (the node lifecycle's pass) instead
 * of decoding a message through protobufjs for one number pair. Answers `null` for anything but
 * the plain case (a negative or huge value, a field of another wire type): the caller then
 * decodes the message the general way, which says what the plain case would not.
 */
export function wireTime(text: string, start: number, end: number, micro: boolean): string | undefined | null {
  let seconds = 0;
  let nanos = 0;
  const reader = new TextReader(text, start, end);
  while (reader.next()) {
    const f = reader.current;
    if (f.field !== 1 && f.field !== 2) continue;
    if (f.wire !== 0) return null;
    const value = smallVarint(text, f.start, f.end);
    if (value === UNUSUAL) return null;
    // The last occurrence of a field wins, as in a full decode.
    if (f.field === 1) seconds = value;
    else nanos = value;
  }
  if ((seconds === 0 && nanos === 0) || seconds === GO_ZERO_TIME_SECONDS) return undefined;
  if (!micro) return secondsTime(seconds);
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}
