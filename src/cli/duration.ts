/**
 * Durations as the daemons' flags spell them: Go's notation (`90s`, `1m0s`, `1h2m3.5s`, `250ms`;
 * the one Go programs print, so values copied from a Kubernetes manifest or a `--help` page work
 * unchanged), parsed and printed by src/api's go-duration. Values are milliseconds in code.
 */
import { formatGoDuration, parseGoDuration } from '../api/index.js';

/** Milliseconds in `text`, or `undefined` when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const nanos = parseGoDuration(text);
  return nanos === undefined ? undefined : nanos / 1e6;
}

/** The canonical spelling of `ms`: `0s`, `500ms`, `1.5s`, `1m0s`, `1h2m3.5s`. */
export function formatDuration(ms: number): string {
  return formatGoDuration(Math.round(ms * 1e6));
}
