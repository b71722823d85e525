/**
 * Go's duration notation (`time.ParseDuration` / `time.Duration.String()`), at nanosecond
 * precision: `15s`, `1m30s`, `1.5s`, `500ms`, `250us` (micro also as U+00B5 or U+03BC then `s`),
 * `0`. Kubernetes speaks it in flags, config files and meta/v1 Duration fields, so svc parses and
 * prints it in one place: the daemons' flags (in milliseconds, src/cli) and the protobuf codec
 * (int64 nanoseconds on the wire, src/encoding) both call these.
 */

const UNIT_NANOS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  '\u00b5s': 1e3, // micro sign
  '\u03bcs': 1e3, // Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

// Escapes, not the letters: one character past Latin-1 in a script makes V8 hold all of its
// source at two bytes per character (the bundled node agent is one large script).
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;

/** The nanoseconds `text` spells (rounded to whole ones), or `undefined` when it is not a Go duration. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  // A bare zero is the one unitless value that cannot be misread.
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < rest.length) {
    const match = PART.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * UNIT_NANOS[match[2]!]!;
  }
  return sign * Math.round(total);
}

/** A number without float noise (`0.30000000000000004` → `0.3`) or trailing zeros. */
const trimmed = (n: number): string => String(Number(n.toFixed(9)));

/** `nanos` as Go's `Duration.String()` writes it: `0s`, `500ns`, `1.5µs`, `500ms`, `1.5s`, `1m0s`, `1h2m3.5s`. */
export function formatGoDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  let rest = Math.abs(nanos);
  if (rest < 1e3) return `${sign}${trimmed(rest)}ns`;
  if (rest < 1e6) return `${sign}${trimmed(rest / 1e3)}\u00b5s`;
  if (rest < 1e9) return `${sign}${trimmed(rest / 1e6)}ms`;
  const hours = Math.floor(rest / 3600e9);
  rest -= hours * 3600e9;
  const minutes = Math.floor(rest / 60e9);
  rest -= minutes * 60e9;
  const seconds = `${trimmed(rest / 1e9)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}
