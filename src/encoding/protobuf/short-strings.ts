/**
 * One string per short ASCII value, shared by every object decoded from protobuf: a fixed table
 * of the strings decoded last, looked up by a hash of their bytes.
 *
 * Why: a decoded object's strings are mostly the same few values (`v1`, `True`, `Running`,
 * `NoExecute`, `node.kubernetes.io/not-ready`, image names, managedFields managers), and a
 * reader that makes a string of every field holds one copy per object of each. A hollow-node
 * process held ~185 strings a pod, most of them such copies (docs/benchmarks.md, branch
 * hollowcost); the manager's and the scheduler's informer caches hold every pod too.
 *
 * How: the table is direct-mapped (a slot per hash, the newest string wins its slot), so it never
 * holds more than SLOTS strings of at most SHORT_STRING_BYTES characters whatever it is fed: a
 * stream of unique values (names, uids) only replaces entries, and a value pushed out is made
 * again, as a new copy, when next seen. A hit costs a hash of the bytes and a compare with one
 * string, in JS, which is cheaper than the native call and allocation it replaces. Only ASCII
 * values are shared: for them a character is a byte, so the compare needs no decoding; anything
 * else is decoded as before.
 */

/** The longest value shared, in bytes: room for label keys, image names and mount paths. */
export const SHORT_STRING_BYTES = 64;

/** The table's slots: a power of two (the hash is masked). At most 4,096 values of 64 B or less: under 0.5 MB held. */
export const SHORT_STRING_SLOTS = 4096;
const MASK = SHORT_STRING_SLOTS - 1;

/** `''` marks an empty slot: no value of length 1 or more matches it. */
const table: string[] = new Array<string>(SHORT_STRING_SLOTS).fill('');

interface NodeSlices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}
/** Node's own slice functions (what Buffer#toString calls after checking its arguments); protobufjs reads strings with them too. */
const slices = Buffer.prototype as unknown as Partial<NodeSlices>;
const hasSlices = typeof slices.latin1Slice === 'function' && typeof slices.utf8Slice === 'function';

function latin1(bytes: Buffer, start: number, end: number): string {
  return hasSlices ? (bytes as unknown as NodeSlices).latin1Slice(start, end) : bytes.toString('latin1', start, end);
}

function utf8(bytes: Buffer, start: number, end: number): string {
  return hasSlices ? (bytes as unknown as NodeSlices).utf8Slice(start, end) : bytes.toString('utf8', start, end);
}

/**
 * The UTF-8 string in `bytes[start, end)`: the table's copy when it is a short ASCII value seen
 * before (and it is the table's from now on), a new string otherwise.
 */
export function shortString(bytes: Buffer, start: number, end: number): string {
  const length = end - start;
  if (length === 0) return '';
  if (length > SHORT_STRING_BYTES) return utf8(bytes, start, end);
  // FNV-1a over the bytes; `high` collects their top bits (any set: not ASCII).
  let hash = 0x811c9dc5;
  let high = 0;
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    high |= b;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  if (high >= 0x80) return utf8(bytes, start, end);
  const slot = (hash ^ (hash >>> 15)) & MASK;
  const held = table[slot]!;
  if (held.length === length) {
    let i = 0;
    while (i < length && held.charCodeAt(i) === bytes[start + i]) i++;
    if (i === length) return held;
  }
  const value = latin1(bytes, start, end);
  table[slot] = value;
  return value;
}

/**
 * The same for bytes held as latin1 characters (one character per byte: the lazy client cache's
 * message text), `text[start, end)`. A value not in the table is added as a copy of its own, not
 * as a slice of `text`, which would keep the whole message alive in the table.
 */
export function shortStringOfLatin1(text: string, start: number, end: number): string {
  const length = end - start;
  if (length === 0) return '';
  if (length > SHORT_STRING_BYTES) return utf8OfLatin1(text, start, end);
  let hash = 0x811c9dc5;
  let high = 0;
  for (let i = start; i < end; i++) {
    const b = text.charCodeAt(i);
    high |= b;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  if (high >= 0x80) return utf8OfLatin1(text, start, end);
  const slot = (hash ^ (hash >>> 15)) & MASK;
  const held = table[slot]!;
  if (held.length === length) {
    let i = 0;
    while (i < length && held.charCodeAt(i) === text.charCodeAt(start + i)) i++;
    if (i === length) return held;
  }
  const bytes = Buffer.from(text.slice(start, end), 'latin1');
  const value = latin1(bytes, 0, length);
  table[slot] = value;
  return value;
}

function utf8OfLatin1(text: string, start: number, end: number): string {
  for (let i = start; i < end; i++) {
    if (text.charCodeAt(i) >= 0x80) return Buffer.from(text.slice(start, end), 'latin1').toString('utf8');
  }
  return text.slice(start, end);
}

/** The slot an ASCII value hashes to (for tests: values that share a slot). */
export function shortStringSlot(value: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  return (hash ^ (hash >>> 15)) & MASK;
}

/** Whether the table holds `value` now: what a decode of it returns instead of a copy of its own. */
export function holdsShortString(value: string): boolean {
  return value.length > 0 && table[shortStringSlot(value)] === value;
}

/** How many slots hold a value, and their characters (for tests: the table stays within its bounds). */
export function shortStringsHeld(): { readonly slots: number; readonly chars: number } {
  let slots = 0;
  let chars = 0;
  for (const value of table) {
    if (value.length > 0) {
      slots++;
      chars += value.length;
    }
  }
  return { slots, chars };
}
