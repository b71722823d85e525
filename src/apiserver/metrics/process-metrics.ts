import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The process metrics scrapers expect (`process_cpu_seconds_total`, memory, start time,
 * heap), read only when scraped. prom-client's `collectDefaultMetrics` was not
 * used: its garbage-collection observer and event-loop monitor run all the time, and on the GET
 * benchmark they cost several microseconds of server CPU per request (docs/benchmarks.md).
 */
export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
    collect() {
      const usage = process.cpuUsage();
      this.reset();
      this.inc((usage.user + usage.system) / 1e6);
    },
  });
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    registers,
    collect() {
      this.set(startSeconds);
    },
  });
  new Gauge({
    name: 'nodejs_heap_size_used_bytes',
    help: 'Process heap size used from Node.js in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Gauge({
    name: 'nodejs_heap_size_total_bytes',
    help: 'Process heap size from Node.js in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage().heapTotal);
    },
  });
}
