// The project's operators benchmarked as a user would, on svc/bench (docs/benchmarking.md): each
// pipeline over synthetic watch events, on the virtual clock where it has timers.
//   npm run bench:pipelines                     (svc bench bench/operators/pipelines.bench.ts)
//   npm run bench:pipelines -- --json > base.json; …; npm run bench:pipelines -- --compare base.json
import { map } from 'rxjs';
import { defineBenchmarks, operatorBenchmark, syntheticEvents, type WatchEvent } from '../../src/bench/index.js';
import { batch, generationChanged, rateLimit, toKey } from '../../operators/index.js';

const steady = syntheticEvents({ keys: 10_000, events: 100_000, ratePerSecond: 1_000 });
// Ten minutes of events at 100/s.
const tenMinutes = syntheticEvents({ keys: 1_000, events: 60_000, ratePerSecond: 100 });
const keyOf = (event: WatchEvent) => `${event.object.metadata.namespace}/${event.object.metadata.name}`;

export default defineBenchmarks([
  operatorBenchmark({
    name: 'toKey',
    operator: () => toKey<WatchEvent>(),
    baseline: { name: 'key by hand', loop: (items) => items.forEach((event) => keyOf(event)) },
    input: steady,
  }),
  operatorBenchmark({
    name: 'generationChanged → toKey',
    operator: () => (source) => source.pipe(map((event: WatchEvent) => ({ ...event, type: event.type })), generationChanged(), toKey()),
    input: steady,
  }),
  operatorBenchmark({
    name: 'batch 1 s / 100, 10 virtual minutes',
    operator: (scheduler) => batch<WatchEvent>({ period: 1_000, max: 100, scheduler }),
    input: tenMinutes,
    keyOf,
    outputKeys: (events) => events.map(keyOf),
  }),
  operatorBenchmark({
    name: 'rateLimit 50/s, 10 virtual minutes',
    operator: (scheduler) => rateLimit<WatchEvent>({ qps: 50, burst: 10, scheduler }),
    input: tenMinutes,
    drainMs: 30 * 60_000,
  }),
]);
