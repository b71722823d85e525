import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { apiThrottle } from '../../operators/index.js';
import { Client, EventRecorder, type InformerFactoryOptions } from '../../src/client/index.js';
import { selfSignedCertificate } from '../../src/encoding/index.js';
import { RequestAuth, startServing, type HealthCheck, type Serving, type ServingTls } from '../../src/serving/index.js';
import type { ControlLoop } from '../context.js';
import { runLeadership, type Leadership } from './leadership.js';
import { LoopActivity } from './loop-activity.js';
import { silentLog, type ManagerLog } from './log.js';
import { ManagerMetrics, type MetricsOptions } from './metrics.js';
import { startTerm, type Term } from './term.js';

/**
 * The controller runtime: one call runs a set of named control loops the way svc-controller-
 * manager runs its own (it is built on this), so a user's controller program gets in a few lines
 * what a production controller needs:
 *
 * - one shared informer factory per term of leadership (one watch per type for every loop);
 * - leader election on ONE Lease for the whole process: the loops run only while it leads, a lost
 *   lease drains them and campaigns again;
 * - SIGTERM / SIGINT → graceful stop: loops drain (bounded by `drainTimeoutMs`), then the Lease is
 *   released and that write awaited, so a successor leads at once; a second signal exits at once;
 * - a secure port with /healthz, /livez, /readyz (ready once the caches of the running loops have
 *   synced) and Prometheus /metrics (each loop's work queue, the leader status);
 * - Events: each loop's context has a recorder reporting as the loop's name;
 * - with `rateLimit`, a token bucket per loop (kube-controller-manager's client per controller):
 *   one loop's burst of writes never delays another loop's requests;
 * - a live view for people: `activity` (every reconcile's result, each queue's depth, retries and
 *   the leadership), served as Server-Sent Events on the secure port's `/live/controllers`.
 */

export interface ElectionOptions {
  /** The Lease. Default `default/<name>`. */
  readonly lease?: { readonly namespace: string; readonly name: string };
  /** This candidate in the Lease. Default `<hostname>_<uuid>`. */
  readonly identity?: string;
  /** ms; defaults 15 000 / 10 000 / 2 000, as client-go. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

export interface RuntimeServingOptions {
  /** Default `0.0.0.0` (every interface). */
  readonly bindAddress?: string;
  /** 0 picks a free port (`serving.port` tells which). */
  readonly port: number;
  /** Default: a self-signed pair made in memory (probes skip verification, as for kube-scheduler). */
  readonly tls?: ServingTls;
  /** HTTP/2 beside HTTP/1.1 (ALPN). Default true. */
  readonly http2?: boolean;
  readonly maxStreamsPerConnection?: number;
  readonly reusePort?: boolean;
  /** /debug/pprof/. Default false. */
  readonly profiling?: boolean;
  /** Who may ask. Default: anyone, for the health endpoints and /metrics only. */
  readonly auth?: RequestAuth;
}

export interface ControllerRuntimeOptions {
  /** The loops, by name: any name (it labels metrics, names the loop's Events and its log lines). Started in this order. */
  readonly controllers: ReadonlyMap<string, ControlLoop> | Readonly<Record<string, ControlLoop>>;
  /** The process: the Lease's default name, the leader metric's label, the Events' default component. Default `controllers`. */
  readonly name?: string;
  /** The loops' client. Default `Client.fromEnv()` (kubectl's config order, then in-cluster), closed on stop. */
  readonly client?: Client;
  /**
   * A token bucket of these sizes for each loop, as kube-controller-manager builds a client per
   * controller: each loop's `ctx.client` is `client` derived (same connections) with a bucket of
   * its own and the user agent `<client's>/<loop name>`; the shared informers' lists and watches
   * and the discovery reads get one each too (`/shared-informers`, `/controller-discovery`).
   * Waits are observed per bucket (`rest_client_rate_limiter_duration_seconds{name}`). Unset:
   * every loop, the informers and discovery use `client` as it is (its own throttle, if any).
   */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  /** The Lease's client: give it a rate limit of its own so controller traffic never delays a renewal. Default `client`. */
  readonly electionClient?: Client;
  /** Leader election (default on, Lease `default/<name>`); `false` leads from the start. */
  readonly election?: ElectionOptions | false;
  /** How long a stop lets reconciles in flight finish before cutting them. Default 30 s. */
  readonly drainTimeoutMs?: number;
  /** Wait between starting one loop and the next. Default 0. */
  readonly startIntervalMs?: number;
  readonly informerOptions?: InformerFactoryOptions;
  /** The secure port; without it nothing listens. */
  readonly serving?: RuntimeServingOptions;
  /** The metrics registry, or options for one of its own. */
  readonly metrics?: ManagerMetrics | MetricsOptions;
  /** The recorder the loops' Events go through. Default: one on `client`, component `name`. */
  readonly events?: EventRecorder;
  /** SIGTERM and SIGINT stop the runtime gracefully (a second one exits at once with 1). Default true. */
  readonly signals?: boolean;
  readonly log?: ManagerLog;
}

export interface ControllerRuntime {
  readonly client: Client;
  readonly metrics: ManagerMetrics;
  /** Results and queue counters as they happen (`/live/controllers` on the secure port). */
  readonly activity: LoopActivity;
  readonly serving: Serving | undefined;
  /** The candidate identity in the Lease. */
  readonly identity: string;
  /** The loops' names, in start order. */
  readonly running: readonly string[];
  /** Whether a term is running now (always, once started, without election). */
  leading(): boolean;
  /** Whether the running term's informers have synced (false while not leading). */
  synced(): boolean;
  /** Resolves when this process first leads. */
  readonly firstTerm: Promise<void>;
  /** Resolves once the runtime has stopped (by `close()` or a signal): loops drained, Lease released, port closed. */
  readonly done: Promise<void>;
  /** Drains the loops (bounded), releases the Lease (awaited), stops serving and the owned client. Idempotent. */
  close(): Promise<void>;
}

/** The secure port's live stream of the loops (Server-Sent Events: `snapshot` and `result` events). */
export const LIVE_CONTROLLERS_PATH = '/live/controllers';

const DEFAULT_ALLOWED = ['/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*', '/metrics'];

export async function runControllers(options: ControllerRuntimeOptions): Promise<ControllerRuntime> {
  const log = options.log ?? silentLog;
  const name = options.name ?? 'controllers';
  const loops: ReadonlyMap<string, ControlLoop> = options.controllers instanceof Map ? options.controllers : new Map(Object.entries(options.controllers));
  const metrics = options.metrics instanceof ManagerMetrics ? options.metrics : new ManagerMetrics(options.metrics);
  const ownClient = options.client === undefined;
  const client = options.client ?? (await Client.fromEnv({ userAgent: name }));
  const events = options.events ?? new EventRecorder({ client, component: name });
  // One bucket per loop, made once for the process (as upstream's client per controller), so a term
  // that starts again finds each loop's bucket as the last one left it.
  const limited = (suffix: string): Client => {
    const rate = options.rateLimit;
    if (rate === undefined) return client;
    return client.derive({ userAgent: `${client.userAgent}/${suffix}`, throttle: apiThrottle({ qps: rate.qps, burst: rate.burst, onWait: metrics.rateLimiterWait(suffix) }) });
  };
  const loopClients = new Map([...loops.keys()].map((loop) => [loop, limited(loop)]));
  const informerClient = limited('shared-informers');
  const discoveryClient = limited('controller-discovery');
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
  const election = options.election === false ? undefined : options.election ?? {};
  const identity = election?.identity ?? `${hostname()}_${randomUUID()}`;
  const lease = election?.lease ?? { namespace: 'default', name };
  const leaderLabel = election ? lease.name : name;

  let shuttingDown = false;
  let currentTerm: Term | undefined;
  let leadership: Leadership | undefined;
  metrics.leading(leaderLabel, false);
  const activity = new LoopActivity(() => ({
    identity,
    ...(election ? { lease: `${lease.namespace}/${lease.name}` } : {}),
    leading: leadership?.leading() ?? false,
    loops: [...loops.keys()],
    failed: Object.fromEntries(leadership?.leading() && currentTerm ? currentTerm.failed : []),
  }));

  let serving: Serving | undefined;
  if (options.serving) {
    const ping: HealthCheck = () => undefined;
    const shutdown: HealthCheck = () => (shuttingDown ? 'shutting down' : undefined);
    // A loop that failed stays stopped until the next term: say so where probes look.
    const controllers: HealthCheck = () => {
      const failed = leadership?.leading() && currentTerm ? [...currentTerm.failed] : [];
      return failed.length === 0 ? undefined : failed.map(([loop, why]) => `${loop}: ${why}`).join('; ');
    };
    // A standby has nothing to sync: it is ready to take over. A leader is ready once its caches are.
    const informerSync: HealthCheck = () => (leadership?.leading() && currentTerm && !currentTerm.synced() ? 'informers have not synced yet' : undefined);
    // As kube's leader-election healthz: a leader that has not renewed its Lease for a lease duration is stuck.
    const leaderElection: HealthCheck = () => leadership?.stuck();
    const electing = election !== undefined;
    const s = options.serving;
    try {
      serving = await startServing({
        bindAddress: s.bindAddress ?? '0.0.0.0',
        port: s.port,
        tls: s.tls ?? selfSignedCertificate({ commonName: name, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: new Date(Date.now() - 3_600_000), notAfter: new Date(Date.now() + 365 * 86_400_000) }),
        http2: s.http2 ?? true,
        ...(s.maxStreamsPerConnection ? { maxStreamsPerConnection: s.maxStreamsPerConnection } : {}),
        ...(s.reusePort ? { reusePort: true } : {}),
        profiling: s.profiling ?? false,
        auth: s.auth ?? new RequestAuth({ alwaysAllowPaths: DEFAULT_ALLOWED }),
        health: {
          livez: new Map([['ping', ping]]),
          healthz: new Map([['ping', ping], ['controllers', controllers], ...(electing ? [['leader-election', leaderElection] as const] : [])]),
          readyz: new Map([['ping', ping], ['controllers', controllers], ['informer-sync', informerSync], ['shutdown', shutdown]]),
        },
        metrics: () => metrics.render(),
        // svc/live (and the API server's bounded sink under it) is loaded by the first watcher:
        // a manager nobody watches never holds that code.
        streams: new Map([
          [
            LIVE_CONTROLLERS_PATH,
            async (res) => {
              const { serveEventStream } = await import('../../src/live/index.js');
              serveEventStream(res, activity.updates$(), { frame: (update) => (update.kind === 'snapshot' ? { event: 'snapshot', data: update.snapshot } : { event: 'result', data: update.result }) });
            },
          ],
        ]),
      });
    } catch (error) {
      if (ownClient) await client.destroy();
      throw error;
    }
  }

  // Loops start only once the port is up: a process that cannot serve never takes the Lease.
  const lead = runLeadership({
    ...(election
      ? {
          election: {
            lease,
            identity,
            leaseDurationMs: election.leaseDurationMs ?? 15_000,
            renewDeadlineMs: election.renewDeadlineMs ?? 10_000,
            retryPeriodMs: election.retryPeriodMs ?? 2_000,
          },
        }
      : {}),
    client: options.electionClient ?? client,
    log,
    onLeading: (leads) => metrics.leading(leaderLabel, leads),
    startTerm: () =>
      (currentTerm = startTerm({
        loops,
        client: informerClient,
        loopClient: (loop) => loopClients.get(loop) ?? client,
        discoveryClient,
        drainTimeoutMs,
        startIntervalMs: options.startIntervalMs ?? 0,
        ...(options.informerOptions ? { informerOptions: options.informerOptions } : {}),
        metrics: (loop) => activity.instrument(loop, metrics.queue(loop)),
        ...(metrics.tracesReconcileStarts ? { onReconcileStart: (loop: string) => metrics.reconcileStart(loop) } : {}),
        onResult: (loop, result) => activity.record(loop, result),
        events,
        log,
      })),
  });
  leadership = lead;

  let markDone!: () => void;
  const done = new Promise<void>((resolve) => (markDone = resolve));
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      shuttingDown = true;
      await lead.stop();
      await serving?.close();
      events.stop();
      if (ownClient) await client.destroy();
      removeSignals();
      markDone();
    })();
    return closing;
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    removeSignals();
    // A second signal does not wait for the drain.
    const force = (): never => process.exit(1);
    process.once('SIGINT', force);
    process.once('SIGTERM', force);
    log.info(`${signal} received: draining controllers, then releasing the Lease`);
    void close().then(() => {
      process.off('SIGINT', force);
      process.off('SIGTERM', force);
    });
  };
  const removeSignals = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  if (options.signals ?? true) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  return {
    client,
    metrics,
    activity,
    serving,
    identity,
    running: [...loops.keys()],
    leading: () => lead.leading(),
    synced: () => lead.leading() && currentTerm !== undefined && currentTerm.synced(),
    firstTerm: lead.firstTerm,
    done,
    close,
  };
}
