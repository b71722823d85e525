/**
 * A cumulative CPU counter's last two samples and the rate between them, as metrics-server
 * computes usage: CPU time is a counter (nanoseconds of CPU), usage the counter's slope over the
 * window between two scrapes. Memory is a gauge and needs no window.
 */

export interface CounterSample {
  /** When the agent read it (ms since the epoch). */
  readonly atMs: number;
  /** CPU nanoseconds used since the container (or node) started. */
  readonly cpuNanos: number;
  readonly memoryBytes: number;
}

export interface Usage {
  /** CPU in nanocores over the window. */
  readonly nanoCores: number;
  readonly memoryBytes: number;
  /** The end of the window (ms). */
  readonly timestampMs: number;
  readonly windowMs: number;
}

/** The previous and the latest sample of one series. */
export interface Series {
  readonly previous: CounterSample | undefined;
  readonly latest: CounterSample;
}

/** The series with `next` appended: an older or equal sample changes nothing; a counter that went back (a restart) starts over. */
export function advance(series: Series | undefined, next: CounterSample): Series {
  if (!series) return { previous: undefined, latest: next };
  if (next.atMs <= series.latest.atMs) return series;
  if (next.cpuNanos < series.latest.cpuNanos) return { previous: undefined, latest: next };
  return { previous: series.latest, latest: next };
}

/** The usage a series shows, once it has two samples. */
export function usageOf(series: Series | undefined): Usage | undefined {
  if (!series?.previous) return undefined;
  const windowMs = series.latest.atMs - series.previous.atMs;
  if (windowMs <= 0) return undefined;
  const nanoCores = Math.round(((series.latest.cpuNanos - series.previous.cpuNanos) * 1000) / windowMs);
  return { nanoCores, memoryBytes: series.latest.memoryBytes, timestampMs: series.latest.atMs, windowMs };
}
