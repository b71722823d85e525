import type { Metric, Registry } from 'prom-client';

/**
 * A Prometheus histogram whose series are handed out once (`series(labels)`) and observed with no
 * label work at all: a series is an array of bucket counts. prom-client's own histogram validates
 * and hashes the label set on every `observe`, which on the API server's GET path was a measurable
 * share of a request's CPU. The registry renders it like any other metric (`get`).
 */
export class SeriesHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  readonly #series: HistogramSeries<L>[] = [];

  constructor(options: { name: string; help: string; buckets: readonly number[]; registers: readonly Registry[] }) {
    this.name = options.name;
    this.help = options.help;
    this.#bounds = options.buckets;
    // The registry takes any object with a name and `get`; prom-client's types list only its own classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** A new series for `labels` (keep it: each call makes another). */
  series(labels: Readonly<Record<L, string>>): HistogramSeries<L> {
    const series = new HistogramSeries(labels, this.#bounds);
    this.#series.push(series);
    return series;
  }

  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const series of this.#series) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { ...series.labels, le: bound }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const series of this.#series) series.reset();
  }
}

/** One label set's observations: per bucket (not cumulative), their sum and count. */
export class HistogramSeries<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  readonly counts: Float64Array;
  readonly #bounds: readonly number[];
  sum = 0;
  count = 0;

  constructor(labels: Readonly<Record<L, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    // Buckets are few (about twenty) and most values fall in the first: a scan beats a search.
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}
