// The main thread's garbage-collection pauses over a window, by kind (perf_hooks' `gc` entries):
// the time the event loop stood still for the collector. Work the collector does on V8's helper
// threads meanwhile (concurrent marking, sweeping) is not in it; /proc's CPU of the whole process is.
import { constants, PerformanceObserver } from 'node:perf_hooks';

export type GcPauses = Record<string, { count: number; ms: number }>;

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/** Starts counting; the returned function stops and hands over the pauses by kind. */
export function startGcPauses(): () => GcPauses {
  const pauses: GcPauses = {};
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = KINDS[(entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      const seen = (pauses[kind] ??= { count: 0, ms: 0 });
      seen.count++;
      seen.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    return pauses;
  };
}
