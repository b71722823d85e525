/**
 * Durations as the daemons' flags spell them: a sequence of decimal numbers with units, like
 * `90s`, `1m0s`, `1h2m3.5s` or `250ms` (the notation Go programs print, so values copied from a
 * Kubernetes manifest or a `--help` page work unchanged). Values are milliseconds in code.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3, // micro sign
  '\u03bcs': 1e-3, // Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

// Escapes, not the letters: one character past Latin-1 in a script makes V8 hold all of its
// source at two bytes per character (the bundled node agent is one 2.7 MB script).
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;

/** Milliseconds in `text`, or `undefined` when it is not a duration. */
export function parseDuration(text: string): number | undefined {
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
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  return sign * total;
}

/** The canonical spelling of `ms`: `0s`, `500ms`, `1.5s`, `1m0s`, `1h2m3.5s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1) return `${sign}${trim(abs * 1000)}µs`;
  if (abs < 1000) return `${sign}${trim(abs)}ms`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = (abs % 60_000) / 1000;
  const head = hours > 0 ? `${hours}h${minutes}m` : minutes > 0 ? `${minutes}m` : '';
  return `${sign}${head}${trim(seconds)}s`;
}

/** A number without float noise (`0.30000000000000004` → `0.3`) or trailing zeros. */
function trim(n: number): string {
  return String(Number(n.toFixed(6)));
}
