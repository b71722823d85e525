import { Counter, Gauge, Registry } from 'prom-client';
import { registerProcessMetrics } from './process-metrics.js';
import { HistogramSeries, SeriesHistogram } from './series-histogram.js';
import type { RequestInfo } from '../request-info.js';

/**
 * The API server's Prometheus metrics, under kube-apiserver's names and labels so its dashboards
 * and alerts read them. One registry per server (two servers in one process, as in tests, do not
 * collide). Values the server already keeps (seats taken, watchers, watch cache sizes) are read
 * when scraped, not counted on the hot path; per-request series are looked up once per label set
 * and kept (`RequestSeries`), so a request costs a map lookup, an integer increment and a bucket
 * count (`SeriesHistogram`): no label set is hashed per request.
 */

/** Upstream's buckets for request and storage latencies. */
const LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

const COMPONENT = 'apiserver';

type RequestLabel = 'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component';
type WatchLabel = 'group' | 'version' | 'kind';

/** A watch cache as the scrape sees it. */
export interface WatchCacheSample {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: string;
  readonly watchers: number;
  readonly eventsReceived: number;
  /** Events its history holds now (its bound is a time window, not a count). */
  readonly history: number;
}

/** What the scrape reads from the rest of the server. */
export interface MetricsSources {
  /** Seats held per request kind (flow control). */
  inflight(kind: 'readOnly' | 'mutating'): number;
  /** Every watch cache, once each. */
  watchCaches(): Iterable<WatchCacheSample>;
}

/**
 * The series of one label set: its latency histogram, and a plain count per response code that the
 * scrape copies into `apiserver_request_total` (prom-client's own counters hash their labels on
 * every increment; a number does not).
 */
interface RequestSeries {
  readonly labels: Readonly<Record<RequestLabel, string>>;
  readonly duration: HistogramSeries<RequestLabel>;
  readonly codes: Map<number, { count: number }>;
  longRunning: Gauge.Internal<Exclude<RequestLabel, 'dry_run'>> | undefined;
}

/** Events sent to the watches of one type; copied into `apiserver_watch_events_total` when scraped. */
interface WatchEventCount {
  readonly labels: Readonly<Record<WatchLabel, string>>;
  count: number;
  inc(): void;
}

/** The verb kube-apiserver reports: LIST, WATCH, APPLY and CONNECT apart from the HTTP method. */
function reportedVerb(info: RequestInfo, contentType: string | undefined): string {
  if (info.subresource === 'exec' || info.subresource === 'attach' || info.subresource === 'portforward' || info.subresource === 'proxy') return 'CONNECT';
  switch (info.verb) {
    case 'get':
      return 'GET';
    case 'list':
      return 'LIST';
    case 'watch':
      return 'WATCH';
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return contentType?.startsWith('application/apply-patch') ? 'APPLY' : 'PATCH';
    case 'delete':
    case 'deletecollection':
      return 'DELETE';
  }
}

/** Non-resource paths get their own series; any other path is `other`, so clients cannot mint series. */
const NON_RESOURCE_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/metrics', '/openapi/v3', '/api', '/apis']);

function nonResourcePath(path: string): string {
  if (NON_RESOURCE_PATHS.has(path)) return path;
  if (path.startsWith('/openapi/v3/')) return '/openapi/v3';
  if (path.startsWith('/apis/')) return '/apis';
  if (path.startsWith('/api/')) return '/api';
  return 'other';
}

export class ApiServerMetrics {
  readonly registry = new Registry();
  readonly #duration: SeriesHistogram<RequestLabel>;
  readonly #longRunning: Gauge<Exclude<RequestLabel, 'dry_run'>>;
  readonly #watchEvents = new Map<string, WatchEventCount>();
  readonly #storage: SeriesHistogram<'operation' | 'type'>;
  readonly #rejected: Counter<'priority_level' | 'flow_schema' | 'reason'>;
  /** Every request series, for the scrape; found by `#byResource` (resource requests) or `#nonResource`. */
  readonly #series: RequestSeries[] = [];
  readonly #byResource = new Map<string, RequestSeries[]>();
  readonly #nonResource = new Map<string, RequestSeries>();
  readonly #storageSeries = new Map<string, HistogramSeries<'operation' | 'type'>>();
  #sources: MetricsSources | undefined;

  constructor() {
    const registers = [this.registry];
    const requestLabels: RequestLabel[] = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    const allSeries = this.#series;
    new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...requestLabels, 'code'],
      registers,
      collect() {
        this.reset();
        for (const series of allSeries) for (const [code, { count }] of series.codes) this.inc({ ...series.labels, code: String(code) }, count);
      },
    });
    this.#duration = new SeriesHistogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component (long-running requests are not observed).',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const sources = () => this.#sources;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
      collect() {
        const from = sources();
        this.set({ request_kind: 'readOnly' }, from?.inflight('readOnly') ?? 0);
        this.set({ request_kind: 'mutating' }, from?.inflight('mutating') ?? 0);
      },
    });
    this.#longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers,
    });
    new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources.',
      labelNames: ['group', 'version', 'kind'],
      registers,
      collect() {
        this.reset();
        for (const cache of sources()?.watchCaches() ?? []) this.set({ group: cache.group, version: cache.version, kind: cache.kind }, cache.watchers);
      },
    });
    const watchEvents = this.#watchEvents;
    new Counter({
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients.',
      labelNames: ['group', 'version', 'kind'],
      registers,
      collect() {
        this.reset();
        for (const { labels, count } of watchEvents.values()) this.inc(labels, count);
      },
    });
    this.#storage = new SeriesHistogram({
      name: 'etcd_request_duration_seconds',
      help: 'Storage request latency in seconds for each operation and object type (named after etcd, whichever store is in use).',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new Counter({
      name: 'apiserver_watch_cache_events_received_total',
      help: 'Counter of events received in watch cache broken by resource type.',
      labelNames: ['group', 'resource'],
      registers,
      collect() {
        this.reset();
        for (const cache of sources()?.watchCaches() ?? []) this.inc({ group: cache.group, resource: cache.resource }, cache.eventsReceived);
      },
    });
    new Gauge({
      name: 'apiserver_watch_cache_capacity',
      help: 'Events the watch cache history holds, by resource type (svc bounds it by time, --watch-history-window, not by count).',
      labelNames: ['group', 'resource'],
      registers,
      collect() {
        this.reset();
        for (const cache of sources()?.watchCaches() ?? []) this.set({ group: cache.group, resource: cache.resource }, cache.history);
      },
    });
    this.#rejected = new Counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by flow control (priority_level: readOnly or mutating; flow_schema: per-user).',
      labelNames: ['priority_level', 'flow_schema', 'reason'],
      registers,
    });
    registerProcessMetrics(this.registry);
  }

  /** Connects the values read at scrape time; until then they read 0. */
  readFrom(sources: MetricsSources): void {
    this.#sources = sources;
  }

  #seriesOf(method: string, path: string, info: RequestInfo | undefined, contentType: string | undefined): RequestSeries {
    const verb = info ? reportedVerb(info, contentType) : method;
    if (info === undefined) {
      const key = `${method} ${nonResourcePath(path)}`;
      let series = this.#nonResource.get(key);
      if (series === undefined) {
        series = this.#newSeries({ verb, dry_run: '', group: '', version: '', resource: '', subresource: nonResourcePath(path), scope: '', component: COMPONENT });
        this.#nonResource.set(key, series);
      }
      return series;
    }
    // Found without building a key: the resource's few series are compared field by field (the
    // label strings are the same few, so most comparisons are of identical strings).
    const scope = info.name !== undefined ? 'resource' : info.namespace !== undefined ? 'namespace' : 'cluster';
    const subresource = info.subresource ?? '';
    let list = this.#byResource.get(info.resource);
    if (list === undefined) {
      list = [];
      this.#byResource.set(info.resource, list);
    }
    for (let i = 0; i < list.length; i++) {
      const labels = list[i]!.labels;
      if (labels.verb === verb && labels.scope === scope && labels.subresource === subresource && labels.group === info.group && labels.version === info.version) return list[i]!;
    }
    const series = this.#newSeries({ verb, dry_run: '', group: info.group, version: info.version, resource: info.resource, subresource, scope, component: COMPONENT });
    list.push(series);
    return series;
  }

  #newSeries(labels: Record<RequestLabel, string>): RequestSeries {
    const series: RequestSeries = { labels, duration: this.#duration.series(labels), codes: new Map(), longRunning: undefined };
    this.#series.push(series);
    return series;
  }

  /** A request ended with `code` after `seconds` (omit `seconds` for a long-running one). */
  request(method: string, path: string, info: RequestInfo | undefined, contentType: string | undefined, code: number, seconds?: number): void {
    const series = this.#seriesOf(method, path, info, contentType);
    const counter = series.codes.get(code);
    if (counter === undefined) series.codes.set(code, { count: 1 });
    else counter.count++;
    if (seconds !== undefined) series.duration.observe(seconds);
  }

  /** A long-running request started; call the returned function when it ends. */
  longRunning(method: string, path: string, info: RequestInfo | undefined, contentType: string | undefined): () => void {
    const series = this.#seriesOf(method, path, info, contentType);
    if (series.longRunning === undefined) {
      const { dry_run: _dryRun, ...labels } = series.labels;
      series.longRunning = this.#longRunning.labels(labels);
    }
    const gauge = series.longRunning;
    gauge.inc();
    return () => gauge.dec();
  }

  /** The counter a watch of this type adds its sent events to (look it up once per watch). */
  watchEvents(group: string, version: string, kind: string): { inc(): void } {
    const key = `${group} ${version} ${kind}`;
    let counter = this.#watchEvents.get(key);
    if (counter === undefined) {
      const created: WatchEventCount = {
        labels: { group, version, kind },
        count: 0,
        inc: () => {
          created.count++;
        },
      };
      counter = created;
      this.#watchEvents.set(key, counter);
    }
    return counter;
  }

  /** A storage operation on `key` took `seconds`. */
  storage(operation: string, key: string, prefix: string, seconds: number): void {
    // The type is the key's `<group>/<resource>` after the store's prefix.
    const groupEnd = key.indexOf('/', prefix.length);
    const resourceEnd = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
    const type = groupEnd < 0 ? '' : key.slice(prefix.length, resourceEnd < 0 ? key.length : resourceEnd);
    const seriesKey = `${operation} ${type}`;
    let series = this.#storageSeries.get(seriesKey);
    if (series === undefined) {
      const slash = type.indexOf('/');
      const group = type.slice(0, slash);
      const resource = type.slice(slash + 1);
      series = this.#storage.series({ operation, type: slash < 0 ? type : group === 'core' ? resource : `${resource}.${group}` });
      this.#storageSeries.set(seriesKey, series);
    }
    series.observe(seconds);
  }

  /** A request refused by flow control. */
  rejected(kind: 'readOnly' | 'mutating', reason: string): void {
    this.#rejected.inc({ priority_level: kind, flow_schema: 'per-user', reason });
  }

  /** The exposition text, and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
