import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkqueueMetrics } from '../../operators/index.js';
import type { ReconcileStart } from '../controller.js';

/**
 * The manager's Prometheus metrics, in a registry of its own (two managers in one process, as in
 * tests, do not collide). Names follow client-go's, so dashboards built for kube-controller-manager
 * read them: per controller (label `name`) the work queue's depth, adds, retries, queue wait and
 * work duration; the leader status; the time requests waited for each API rate limiter.
 */

export interface MetricsOptions {
  /** Fully qualified names not to register (`--disabled-metrics`). */
  readonly disabled?: ReadonlySet<string>;
  /** `metric,label` → the values allowed; others are reported as `unexpected` (`--allow-metric-labels`). */
  readonly allowLabels?: ReadonlyMap<string, readonly string[]>;
  /**
   * An annotation a writer sets to its send time (ms since the epoch, decimals allowed): each
   * reconcile started by a change of its value is observed in
   * `controller_sent_to_reconcile_start_seconds`, the whole path from the write to the reconcile
   * (API server, watch, informer, controller) by this process's clock (`--latency-annotation`).
   */
  readonly latencyAnnotation?: string;
}

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Finer at the low end: an event's way to its reconcile is milliseconds or less when all is well. */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The object a trigger carries, when it carries one: an informer event's new object, or an object. */
const objectOf = (trigger: unknown): { metadata?: { annotations?: Record<string, string> } } | undefined => {
  if (typeof trigger !== 'object' || trigger === null) return undefined;
  if ('metadata' in trigger) return trigger as { metadata?: { annotations?: Record<string, string> } };
  const object = (trigger as { object?: unknown }).object;
  return typeof object === 'object' && object !== null ? (object as { metadata?: { annotations?: Record<string, string> } }) : undefined;
};
const oldOf = (trigger: unknown): { metadata?: { annotations?: Record<string, string> } } | undefined => {
  const old = typeof trigger === 'object' && trigger !== null && !('metadata' in trigger) ? (trigger as { old?: unknown }).old : undefined;
  return typeof old === 'object' && old !== null ? (old as { metadata?: { annotations?: Record<string, string> } }) : undefined;
};

export class ManagerMetrics {
  readonly registry = new Registry();
  readonly #disabled: ReadonlySet<string>;
  readonly #allow: ReadonlyMap<string, ReadonlySet<string>>;
  readonly #depth: Gauge<'name'> | undefined;
  readonly #adds: Counter<'name'> | undefined;
  readonly #retries: Counter<'name'> | undefined;
  readonly #queued: Histogram<'name'> | undefined;
  readonly #work: Histogram<'name' | 'result'> | undefined;
  readonly #leader: Gauge<'name'> | undefined;
  readonly #throttle: Histogram<'name'> | undefined;
  readonly #eventToStart: Histogram<'name'> | undefined;
  readonly #sentToStart: Histogram<'name'> | undefined;
  readonly #latencyAnnotation: string | undefined;

  constructor(options: MetricsOptions = {}) {
    this.#disabled = options.disabled ?? new Set();
    this.#allow = new Map([...(options.allowLabels ?? new Map<string, readonly string[]>())].map(([k, v]) => [k, new Set(v)]));
    const registers = [this.registry];
    const on = (name: string) => !this.#disabled.has(name);
    this.#depth = on('workqueue_depth') ? new Gauge({ name: 'workqueue_depth', help: 'Keys waiting in the work queue of a controller.', labelNames: ['name'], registers }) : undefined;
    this.#adds = on('workqueue_adds_total') ? new Counter({ name: 'workqueue_adds_total', help: 'Keys added to the work queue of a controller (not counting coalesced adds).', labelNames: ['name'], registers }) : undefined;
    this.#retries = on('workqueue_retries_total') ? new Counter({ name: 'workqueue_retries_total', help: 'Failed reconciles retried with back-off.', labelNames: ['name'], registers }) : undefined;
    this.#queued = on('workqueue_queue_duration_seconds')
      ? new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long a key waits in the work queue of a controller, from its add to the start of its reconcile.', labelNames: ['name'], buckets: DURATION_BUCKETS, registers })
      : undefined;
    this.#work = on('workqueue_work_duration_seconds')
      ? new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long reconciles take, by result (awaitChange, requeueAfter, retry, terminal).', labelNames: ['name', 'result'], buckets: DURATION_BUCKETS, registers })
      : undefined;
    this.#leader = on('leader_election_master_status') ? new Gauge({ name: 'leader_election_master_status', help: '1 while this process leads, else 0.', labelNames: ['name'], registers }) : undefined;
    this.#throttle = on('rest_client_rate_limiter_duration_seconds')
      ? new Histogram({
          name: 'rest_client_rate_limiter_duration_seconds',
          help: "How long requests to the API server waited for the client rate limiter, by bucket (a loop's name, shared-informers, controller-discovery, leader-election, or the process's own).",
          labelNames: ['name'],
          buckets: DURATION_BUCKETS,
          registers,
        })
      : undefined;
    this.#eventToStart = on('controller_event_to_reconcile_start_seconds')
      ? new Histogram({
          name: 'controller_event_to_reconcile_start_seconds',
          help: "How long from a change reaching a controller (the informer's event, before the owner lookup and the work queue) to the start of the reconcile it caused.",
          labelNames: ['name'],
          buckets: LATENCY_BUCKETS,
          registers,
        })
      : undefined;
    const annotation = options.latencyAnnotation === '' ? undefined : options.latencyAnnotation;
    this.#latencyAnnotation = annotation;
    this.#sentToStart =
      annotation !== undefined && on('controller_sent_to_reconcile_start_seconds')
        ? new Histogram({
            name: 'controller_sent_to_reconcile_start_seconds',
            help: `How long from the send time a writer put in the annotation ${annotation} to the start of the reconcile the change caused, by this process's clock.`,
            labelNames: ['name'],
            buckets: LATENCY_BUCKETS,
            registers,
          })
        : undefined;
    collectDefaultMetrics({ register: this.registry });
    for (const name of this.#disabled) if (this.registry.getSingleMetric(name)) this.registry.removeSingleMetric(name);
  }

  /** A label value as the allow-list lets it be reported. */
  #label(metric: string, label: string, value: string): string {
    const allowed = this.#allow.get(`${metric},${label}`);
    return allowed === undefined || allowed.has(value) ? value : 'unexpected';
  }

  /** The hook a controller named `name` reports its work queue to. */
  queue(name: string): WorkqueueMetrics {
    const depth = this.#depth?.labels({ name: this.#label('workqueue_depth', 'name', name) });
    const adds = this.#adds?.labels({ name: this.#label('workqueue_adds_total', 'name', name) });
    const retries = this.#retries?.labels({ name: this.#label('workqueue_retries_total', 'name', name) });
    const queued = this.#queued?.labels({ name: this.#label('workqueue_queue_duration_seconds', 'name', name) });
    const workName = this.#label('workqueue_work_duration_seconds', 'name', name);
    const work = this.#work;
    return {
      ...(adds ? { add: () => adds.inc() } : {}),
      ...(depth ? { depth: (n: number) => depth.set(n) } : {}),
      ...(retries ? { retry: () => retries.inc() } : {}),
      ...(queued ? { queueDuration: (ms: number) => queued.observe(ms / 1000) } : {}),
      ...(work ? { workDuration: (ms: number, result: string) => work.observe({ name: workName, result: this.#label('workqueue_work_duration_seconds', 'result', result) }, ms / 1000) } : {}),
    };
  }

  /** Whether any reconcile-start metric is on: the runtime hands controllers the hook only then. */
  get tracesReconcileStarts(): boolean {
    return this.#eventToStart !== undefined || this.#sentToStart !== undefined;
  }

  /**
   * The hook a controller named `name` reports its reconcile starts to. Starts without a trigger
   * (retries, requeues) are not observed; the sent time is read only from a trigger whose object
   * changed the annotation (an update that left it as it was is some other change).
   */
  reconcileStart(name: string): (start: ReconcileStart) => void {
    const eventToStart = this.#eventToStart?.labels({ name: this.#label('controller_event_to_reconcile_start_seconds', 'name', name) });
    const sentToStart = this.#sentToStart?.labels({ name: this.#label('controller_sent_to_reconcile_start_seconds', 'name', name) });
    const annotation = this.#latencyAnnotation;
    return (start) => {
      if (start.triggeredAt === undefined) return;
      eventToStart?.observe((start.startedAt - start.triggeredAt) / 1000);
      if (sentToStart === undefined || annotation === undefined) return;
      const sent = objectOf(start.trigger)?.metadata?.annotations?.[annotation];
      if (sent === undefined || sent === oldOf(start.trigger)?.metadata?.annotations?.[annotation]) return;
      const sentAt = Number(sent);
      if (!Number.isFinite(sentAt)) return;
      sentToStart.observe(Math.max(0, performance.timeOrigin + performance.now() - sentAt) / 1000);
    };
  }

  leading(name: string, leads: boolean): void {
    this.#leader?.set({ name: this.#label('leader_election_master_status', 'name', name) }, leads ? 1 : 0);
  }

  /** The hook the rate limiter named `name` (a loop's, or another client's) reports each request's wait for its token to, in ms. */
  rateLimiterWait(name: string): (waitMs: number) => void {
    const waits = this.#throttle?.labels({ name: this.#label('rest_client_rate_limiter_duration_seconds', 'name', name) });
    return waits ? (ms) => waits.observe(ms / 1000) : () => undefined;
  }

  /** The exposition text, and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
