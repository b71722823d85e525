import { formatDuration, parseDuration } from './duration.js';
import type { FlagSpec, MapValueType } from './flag-spec.js';

/**
 * How each flag type reads its text, starts from nothing, accumulates repeated occurrences and
 * prints its default. The parser and the docs renderer share these so they cannot disagree.
 */

/** A parsed value, or what is wrong with the text. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (problem: string): Parsed<never> => ({ ok: false, problem });

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function parseBool(text: string): Parsed<boolean> {
  const lower = text.toLowerCase();
  if (lower === 'true') return ok(true);
  if (lower === 'false') return ok(false);
  return bad('must be true or false');
}

function parseInt64(text: string): Parsed<number> {
  if (!/^[-+]?\d+$/.test(text)) return bad('not an integer');
  const n = Number(text);
  // Beyond 2^53 a JS number would silently round: refuse rather than store a different value.
  if (!Number.isSafeInteger(n)) return bad('integer out of range');
  return ok(n);
}

function parseFloatValue(text: string): Parsed<number> {
  const n = text.trim() === '' ? NaN : Number(text);
  return Number.isFinite(n) ? ok(n) : bad('not a number');
}

function parseScalar(type: MapValueType, text: string): Parsed<string | boolean | number> {
  switch (type) {
    case 'string':
      return ok(text);
    case 'bool':
      return parseBool(text);
    case 'int':
      return parseInt64(text);
    case 'float':
      return parseFloatValue(text);
  }
}

/** `a,b,,c` → `[a, b, c]`: an empty item is a typo, not a value; `--x=` empties the list. */
function splitList(text: string): string[] {
  return text.split(',').filter((item) => item !== '');
}

/** `k=v,k2=v2` → pairs; every item needs a key and `=`. */
function splitPairs(text: string): Parsed<Array<[string, string]>> {
  const pairs: Array<[string, string]> = [];
  for (const item of splitList(text)) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? '' : item.slice(0, eq).trim();
    if (eq < 0 || key === '') return bad(`${JSON.stringify(item)} is not of the form key=value`);
    pairs.push([key, item.slice(eq + 1).trim()]);
  }
  return ok(pairs);
}

/** Reads one occurrence's text into the flag's value type (not yet merged with earlier ones). */
export function parseValue(spec: FlagSpec, text: string): Parsed<unknown> {
  switch (spec.type) {
    case 'string':
      return ok(text);
    case 'bool':
      return parseBool(text);
    case 'int':
      return parseInt64(text);
    case 'int32': {
      const n = parseInt64(text);
      if (n.ok && (n.value < INT32_MIN || n.value > INT32_MAX)) return bad('integer out of range for int32');
      return n;
    }
    case 'float':
      return parseFloatValue(text);
    case 'duration': {
      const ms = parseDuration(text);
      return ms === undefined ? bad('not a duration (examples: 90s, 1m30s, 1h2m3.5s, 250ms)') : ok(ms);
    }
    case 'enum':
      return spec.values.includes(text) ? ok(text) : bad(`must be one of ${spec.values.join(', ')}`);
    case 'stringSlice':
      return ok(splitList(text));
    case 'stringArray':
      return ok([text]);
    case 'map': {
      const pairs = splitPairs(text);
      if (!pairs.ok) return pairs;
      // Built through a Map: a key like `__proto__` must stay an ordinary key.
      const map = new Map<string, unknown>();
      for (const [key, raw] of pairs.value) {
        const value = parseScalar(spec.of, raw);
        if (!value.ok) return bad(`value of ${key}: ${value.problem}`);
        map.set(key, value.value);
      }
      return ok(Object.fromEntries(map));
    }
    case 'multimap': {
      const pairs = splitPairs(text);
      if (!pairs.ok) return pairs;
      const map = new Map<string, string[]>();
      for (const [key, value] of pairs.value) map.set(key, [...(map.get(key) ?? []), value]);
      return ok(Object.fromEntries(map));
    }
  }
}

/** A repeated slice or map flag adds to what came before; any other flag's last occurrence wins. */
export function mergeValue(spec: FlagSpec, previous: unknown, next: unknown): unknown {
  switch (spec.type) {
    case 'stringSlice':
    case 'stringArray':
      return [...(previous as string[]), ...(next as string[])];
    case 'map':
      return { ...(previous as object), ...(next as object) };
    case 'multimap': {
      const merged = new Map(Object.entries(previous as Record<string, string[]>));
      for (const [key, values] of Object.entries(next as Record<string, string[]>)) merged.set(key, [...(merged.get(key) ?? []), ...values]);
      return Object.fromEntries(merged);
    }
    default:
      return next;
  }
}

/** The value of a flag that is neither given nor defaulted. */
export function implicitValue(spec: FlagSpec): unknown {
  switch (spec.type) {
    case 'bool':
      return false;
    case 'stringSlice':
    case 'stringArray':
      return [];
    case 'map':
    case 'multimap':
      return {};
    default:
      return undefined;
  }
}

/** The flag's value as it would be typed on the command line (for defaults in help and docs). */
export function formatValue(spec: FlagSpec, value: unknown): string {
  switch (spec.type) {
    case 'duration':
      return formatDuration(value as number);
    case 'stringSlice':
      return (value as string[]).join(',');
    case 'stringArray':
      return (value as string[]).join(' ');
    case 'map':
      return Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(',');
    case 'multimap':
      return Object.entries(value as Record<string, string[]>)
        .flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`))
        .join(',');
    default:
      return String(value);
  }
}

/** Whether a default is worth printing: `false`, `0`, `""` and empty lists say nothing. */
export function isZeroValue(spec: FlagSpec, value: unknown): boolean {
  if (value === undefined) return true;
  switch (spec.type) {
    case 'string':
    case 'enum':
      return value === '';
    case 'bool':
      return value === false;
    case 'stringSlice':
    case 'stringArray':
      return (value as string[]).length === 0;
    case 'map':
    case 'multimap':
      return Object.keys(value as object).length === 0;
    default:
      return value === 0;
  }
}
