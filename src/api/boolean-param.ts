import { badRequest } from './status-builders.js';
import type { StatusError } from './status-error.js';

// Exactly the spellings Go's strconv.ParseBool takes, which is how Kubernetes reads every boolean
// option; clients send them as their language prints a boolean (Python's `True`).
const TRUE: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** The boolean a text spells as Go's strconv.ParseBool reads it; undefined when it spells none. */
export function parseBool(text: string): boolean | undefined {
  return TRUE.has(text) ? true : FALSE.has(text) ? false : undefined;
}

/** The 400 for a boolean option spelled some other way. */
export function notABoolean(name: string, text: string): StatusError {
  return badRequest(`${name} ${JSON.stringify(text)} is not valid: it must be a boolean (true, false, 1, 0, t, f, True, False, TRUE, FALSE, T or F)`);
}

/**
 * A boolean query option (the last value when it is repeated): absent → undefined, empty →
 * `empty` (what the option means when named without a value), else parsed as strconv.ParseBool
 * does; any other text → 400.
 */
export function booleanParam(name: string, value: unknown, empty?: boolean): boolean | undefined {
  const text = Array.isArray(value) ? value[value.length - 1] : value;
  if (text === undefined || text === null) return undefined;
  if (typeof text === 'boolean') return text;
  const string = String(text);
  if (string === '') return empty;
  const parsed = parseBool(string);
  if (parsed === undefined) throw notABoolean(name, string);
  return parsed;
}
