/**
 * meta/v1 Duration: in JSON a Go duration string (`15s`, `1m30s`, `1.5s`, `500ms`; micro as `us`, U+00B5 or U+03BC then `s`), in protobuf
 * int64 nanoseconds. Written back as Go's `time.Duration.String()` writes it, so a value that
 * came in as Go writes it round-trips unchanged.
 */
const UNITS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, '\u00b5s': 1e3, '\u03bcs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** The nanoseconds of a Go duration string; undefined when it is none. */
export function durationToNanos(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.startsWith('-') || value.startsWith('+') ? value.slice(1) : value;
  if (text === '0') return 0;
  const parts = /^(?:(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/.test(text) ? text.match(/(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g) : null;
  if (!parts) return undefined;
  let nanos = 0;
  for (const part of parts) {
    const [, number, unit] = /^(\d+(?:\.\d*)?|\.\d+)(.+)$/.exec(part)!;
    nanos += Number(number) * UNITS[unit!]!;
  }
  return Math.round(value.startsWith('-') ? -nanos : nanos);
}

const trimmed = (n: number): string => String(Number(n.toFixed(9)));

export function nanosToDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  let rest = Math.abs(nanos);
  if (rest < 1e3) return `${sign}${rest}ns`;
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
