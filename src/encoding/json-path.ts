import { isObject } from './json-value.js';

/**
 * The simple JSONPaths of printer columns and scale subresources: `.spec.replicas`,
 * `.status.conditions[0].type`, `.metadata.labels['app.kubernetes.io/name']`, optionally wrapped
 * in `{}` as kubectl writes them. Filters, wildcards and recursive descent are not accepted.
 */

export type JsonPathSegment = string | number;

const NAME = /^[A-Za-z_$][\w$-]*/;
const INDEX = /^\[(\d+)\]/;
const QUOTED = /^\[(?:'([^']*)'|"([^"]*)")\]/;

/** The segments of a simple path; undefined when it is not one. */
export function parseJsonPath(path: string): JsonPathSegment[] | undefined {
  let rest = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  if (!rest.startsWith('.') && !rest.startsWith('[')) return undefined;
  const segments: JsonPathSegment[] = [];
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      const name = NAME.exec(rest.slice(1));
      if (!name) return undefined;
      segments.push(name[0]);
      rest = rest.slice(1 + name[0].length);
      continue;
    }
    const index = INDEX.exec(rest);
    if (index) {
      segments.push(Number(index[1]));
      rest = rest.slice(index[0].length);
      continue;
    }
    const quoted = QUOTED.exec(rest);
    if (!quoted) return undefined;
    segments.push(quoted[1] ?? quoted[2] ?? '');
    rest = rest.slice(quoted[0].length);
  }
  return segments.length > 0 ? segments : undefined;
}

/** The value at parsed `segments`; undefined when a step is missing. */
export function valueAtPath(object: unknown, segments: readonly JsonPathSegment[]): unknown {
  let current = object;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment];
    } else {
      // Own fields only: `.spec.constructor` of an object without one is missing, not Object.
      if (!isObject(current) || !Object.hasOwn(current, segment)) return undefined;
      current = current[segment];
    }
  }
  return current;
}
