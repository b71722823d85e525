import { StatusError } from '../../api/index.js';

/**
 * A structural scanner over JSON text: finds the members of an object and the extent of a value
 * without decoding anything, so the lazy cache can learn an object's name, namespace, version and
 * labels, and where each field's text is, at the cost of one pass over the characters and no
 * allocations but the result. It checks the structure it walks (braces, brackets, strings, colons,
 * commas) — not the insides of the values it skips: those are checked by JSON.parse when (and
 * if) a field is read.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COLON = 58;
const COMMA = 44;

/** Malformed JSON text: the server sent something that is not JSON. */
export function malformed(text: string, at: number, what: string): StatusError {
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: `malformed JSON from the server at character ${at}: ${what} (near ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))})`,
  });
}

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isLiteralChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 45 || c === 43 || c === 46;
}

export function skipWs(s: string, i: number): number {
  while (isWs(s.charCodeAt(i))) i += 1;
  return i;
}

/** `s[i]` is a quote; answers the index just past the closing quote. */
export function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) throw malformed(s, i, 'unterminated string');
    // A quote preceded by an odd number of backslashes is escaped.
    let b = q - 1;
    while (s.charCodeAt(b) === BACKSLASH) b -= 1;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** `s[i]` starts a value; answers the index just past it. */
export function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === LBRACE || c === LBRACKET) {
    // Brackets of both kinds are counted as one depth: the structure inside is JSON.parse's to check.
    let depth = 0;
    for (let j = i; j < s.length; j += 1) {
      const d = s.charCodeAt(j);
      if (d === QUOTE) j = skipString(s, j) - 1;
      else if (d === LBRACE || d === LBRACKET) depth += 1;
      else if (d === RBRACE || d === RBRACKET) {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
    }
    throw malformed(s, i, 'unterminated object or array');
  }
  // A number or true/false/null: its characters, up to whatever follows it (checked by the caller).
  let j = i;
  while (isLiteralChar(s.charCodeAt(j))) j += 1;
  if (j === i) throw malformed(s, i, 'a value was expected');
  return j;
}

/**
 * The members of the object starting at `s[i]` (`{`): four numbers per member — key start (its
 * opening quote), key end (past its closing quote), value start, value end — and where the
 * object ends.
 */
export interface Members {
  readonly ranges: number[];
  readonly end: number;
}

export function scanMembers(s: string, i: number): Members {
  if (s.charCodeAt(i) !== LBRACE) throw malformed(s, i, 'an object was expected');
  const ranges: number[] = [];
  let j = skipWs(s, i + 1);
  if (s.charCodeAt(j) === RBRACE) return { ranges, end: j + 1 };
  for (;;) {
    if (s.charCodeAt(j) !== QUOTE) throw malformed(s, j, 'a key was expected');
    const keyEnd = skipString(s, j);
    const colon = skipWs(s, keyEnd);
    if (s.charCodeAt(colon) !== COLON) throw malformed(s, colon, "':' was expected");
    const valueStart = skipWs(s, colon + 1);
    const valueEnd = skipValue(s, valueStart);
    ranges.push(j, keyEnd, valueStart, valueEnd);
    const next = skipWs(s, valueEnd);
    const c = s.charCodeAt(next);
    if (c === RBRACE) return { ranges, end: next + 1 };
    if (c !== COMMA) throw malformed(s, next, "',' or '}' was expected");
    j = skipWs(s, next + 1);
  }
}

/** The value ranges (start, end pairs) of the array starting at `s[i]` (`[`), and where it ends. */
export function scanElements(s: string, i: number): Members {
  if (s.charCodeAt(i) !== LBRACKET) throw malformed(s, i, 'an array was expected');
  const ranges: number[] = [];
  let j = skipWs(s, i + 1);
  if (s.charCodeAt(j) === RBRACKET) return { ranges, end: j + 1 };
  for (;;) {
    const end = skipValue(s, j);
    ranges.push(j, end);
    const next = skipWs(s, end);
    const c = s.charCodeAt(next);
    if (c === RBRACKET) return { ranges, end: next + 1 };
    if (c !== COMMA) throw malformed(s, next, "',' or ']' was expected");
    j = skipWs(s, next + 1);
  }
}

/** The text of the string `s[start, end)` (quotes included) as a JS string. */
export function stringAt(s: string, start: number, end: number): string {
  const raw = s.slice(start + 1, end - 1);
  // Without a backslash the raw text is the string (valid JSON has no raw control characters).
  return raw.includes('\\') ? (JSON.parse(s.slice(start, end)) as string) : raw;
}

/** Whether the key at `ranges[m]` is `key`, without decoding it when it has no escapes. */
export function keyIs(s: string, ranges: readonly number[], m: number, key: string): boolean {
  const start = ranges[m]! + 1;
  const end = ranges[m + 1]! - 1;
  for (let k = start; k < end; k += 1) if (s.charCodeAt(k) === BACKSLASH) return stringAt(s, start - 1, end + 1) === key;
  return end - start === key.length && s.startsWith(key, start);
}

/** The offset in `ranges` of the last member named `key` (JSON.parse keeps the last one), or -1. */
export function findMember(s: string, ranges: readonly number[], key: string): number {
  for (let m = ranges.length - 4; m >= 0; m -= 4) if (keyIs(s, ranges, m, key)) return m;
  return -1;
}

/** The member `key`'s value as a string, when it is one; undefined when absent or not a string. */
export function stringMember(s: string, ranges: readonly number[], key: string): string | undefined {
  const m = findMember(s, ranges, key);
  if (m < 0) return undefined;
  const start = ranges[m + 2]!;
  return s.charCodeAt(start) === QUOTE ? stringAt(s, start, ranges[m + 3]!) : undefined;
}
