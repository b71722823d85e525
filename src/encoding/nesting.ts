import { badRequest, type StatusError } from '../api/index.js';
import { jsonStringEnd } from './json-string-end.js';

/**
 * The deepest nesting of objects and arrays a request body, a patch result or a stored object may
 * have: `{}` is 1 deep, `{"a":[]}` 2. Kubernetes allows 10 000; svc allows less because its
 * walks (the YAML composer, validation, patches, field sets) recurse on V8's ~1 MB stack, and the
 * first of them overflows between 1 000 and 1 500 levels (measured with `.scratch` probes on Node 20,
 * see docs/security.md#limits). 500 leaves every walk twice its depth in headroom. Every decoder
 * checks it without recursing before anything recursive runs.
 */
export const MAX_NESTING_DEPTH = 500;

export function nestingTooDeep(what = 'the request body', limit = MAX_NESTING_DEPTH): StatusError {
  return badRequest(`${what} is nested too deeply: objects and arrays may be nested at most ${limit} levels`);
}

/**
 * Whether JSON text nests deeper than `limit`: one pass over the characters, counting brackets
 * outside strings. Exact for valid JSON; for anything else it is what a JSON parser would see up
 * to the first error.
 */
export function jsonTextTooDeep(text: string, limit = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      i = jsonStringEnd(text, i);
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if ((ch === 0x7d /* } */ || ch === 0x5d) /* ] */ && depth > 0) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether a decoded value nests deeper than `limit`, walked with an explicit stack (never the call
 * stack). A value that contains itself (a YAML alias cycle) is infinitely deep and is caught at the
 * limit. Stops at the first path that is too deep.
 */
export function valueTooDeep(value: unknown, limit = MAX_NESTING_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as object;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === 'object' && !ArrayBuffer.isView(child)) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Throws the 400 when a decoded value nests deeper than the limit. */
export function requireNestingWithin(value: unknown, what?: string, limit = MAX_NESTING_DEPTH): void {
  if (valueTooDeep(value, limit)) throw nestingTooDeep(what, limit);
}
