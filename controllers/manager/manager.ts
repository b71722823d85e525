import { apiThrottle } from '../../operators/index.js';
import { Client, EventRecorder, jsonCodec, loadProtobufCodec, type Codec, type ConnectionOptions } from '../../src/client/index.js';
import { PROTOBUF_MEDIA_TYPE } from '../../src/encoding/index.js';
import type { RequestAuth, Serving, ServingTls } from '../../src/serving/index.js';
import type { ControlLoop } from '../context.js';
import { ManagerMetrics, runControllers, type LoopActivity, silentLog, type ControllerRuntime, type ElectionSettings, type ManagerLog, type MetricsOptions } from '../runtime/index.js';
import { cacheTransform } from './cache-transform.js';
import { builtinLoops, type LoopRegistry, type LoopSettings } from './loop-registry.js';

/**
 * The controller manager: clients to the API server (one connection pool; a token bucket per loop,
 * for the shared informers, for discovery and for the manager's Events; the Lease on a client of
 * its own), the selected control loops — built-in ones and those of `--controller-module`s — run on
 * the controller runtime (controllers/runtime: terms of leadership, drain, release, the secure
 * port). The CLI turns flags into these options; tests and `svc up` call `startControllerManager`.
 */

const MANAGER_NAME = 'svc-controller-manager';

/** The loops' request sockets when the options name none (the flag's default). */
export const DEFAULT_API_CONNECTIONS = 64;

export interface ControllerManagerOptions {
  /** Where the API server is and who to be (a resolved svcconfig, `--master` applied). */
  readonly connection: ConnectionOptions;
  /** `--svc-api-content-type`: `application/vnd.svc.protobuf` (the client's protobuf codec) or `application/json`. */
  readonly contentType: string;
  readonly qps: number;
  readonly burst: number;
  /**
   * `--svc-api-connections`: sockets the loops' requests hold to the API server at most (their
   * watches have sockets of their own: docs/client.md#connections). Default 64.
   */
  readonly connections?: number;
  /** The controllers `--controllers` selected, in order (built-in names and those of controller modules). */
  readonly controllers: readonly string[];
  /** Default: `builtinLoops()`; the command adds the loops of `--controller-module`s. */
  readonly loops?: LoopRegistry;
  readonly loopSettings: LoopSettings;
  /** `--enable-garbage-collector=false` takes the garbage collector out whatever `--controllers` says. */
  readonly enableGarbageCollector: boolean;
  readonly drainTimeoutMs: number;
  readonly startIntervalMs: number;
  /** Without it this process leads from the start (`--leader-elect=false`). */
  readonly election?: Omit<ElectionSettings, 'identity'> & { readonly identity?: string };
  /** Without it nothing listens (`--secure-port=0`). */
  readonly serving?: {
    readonly bindAddress: string;
    readonly port: number;
    readonly tls: ServingTls;
    readonly http2: boolean;
    readonly maxStreamsPerConnection?: number;
    readonly reusePort?: boolean;
    readonly profiling: boolean;
    readonly auth: RequestAuth;
  };
  readonly metrics?: MetricsOptions;
  /** The user agent of the manager's requests; each loop's is this and `/<loop name>` (as kube-controller-manager's). */
  readonly userAgent?: string;
  readonly log?: ManagerLog;
}

export interface RunningControllerManager {
  readonly metrics: ManagerMetrics;
  /** Each reconcile's result and each queue's counters as they happen (the secure port's `/live/controllers`). */
  readonly activity: LoopActivity;
  /** The manager's own client (its bucket: the Events' writes); each loop has a client derived from it with a bucket of its own. */
  readonly client: Client;
  readonly serving: Serving | undefined;
  /** The candidate identity in the Lease. */
  readonly identity: string;
  /** Controllers that run in each term; the selected ones without a loop are in `notBuilt`. */
  readonly running: readonly string[];
  readonly notBuilt: readonly string[];
  leading(): boolean;
  /** Whether the running term's informers have synced (readiness). */
  synced(): boolean;
  /** Resolves when this process first leads. */
  readonly firstTerm: Promise<void>;
  /** Drains the loops (bounded by the shutdown timeout), releases the Lease, stops serving. Idempotent. */
  close(): Promise<void>;
}

export async function startControllerManager(options: ControllerManagerOptions): Promise<RunningControllerManager> {
  const log = options.log ?? silentLog;
  const metrics = new ManagerMetrics(options.metrics);
  // Protobuf for kinds that have a message, JSON for the rest (custom types, patches): the codec decides per object.
  const codec: Codec = options.contentType === PROTOBUF_MEDIA_TYPE ? await loadProtobufCodec() : jsonCodec;
  const userAgent = options.userAgent ?? 'svc-controller-manager';
  // The manager's own bucket: its Events (the recorder's writes). Each loop, the shared informers
  // and discovery get a bucket of their own from the runtime (`rateLimit`), on these connections.
  const client = new Client({
    ...options.connection,
    codec,
    userAgent,
    connections: options.connections ?? DEFAULT_API_CONNECTIONS,
    throttle: apiThrottle({ qps: options.qps, burst: options.burst, onWait: metrics.rateLimiterWait(MANAGER_NAME) }),
  });
  // The lease has its own client, bucket and socket: controller traffic must never delay a renewal.
  const electionClient = new Client({
    ...options.connection,
    codec,
    userAgent: `${userAgent}/leader-election`,
    throttle: apiThrottle({ qps: options.qps, burst: options.burst, onWait: metrics.rateLimiterWait('leader-election') }),
  });

  const registry = options.loops ?? builtinLoops();
  const loops = new Map<string, ControlLoop>();
  const notBuilt: string[] = [];
  for (const name of options.controllers) {
    if (name === 'garbage-collector-controller' && !options.enableGarbageCollector) {
      log.info('garbage-collector-controller is off: --enable-garbage-collector=false');
      continue;
    }
    if (name === 'device-taint-eviction-controller' && options.loopSettings.draDeviceTaints !== true) {
      log.info('device-taint-eviction-controller is off: the DRADeviceTaints feature gate is off (the default, as upstream)');
      continue;
    }
    const factory = registry.get(name);
    if (factory === undefined) notBuilt.push(name);
    else loops.set(name, factory(options.loopSettings));
  }
  if (notBuilt.length > 0) log.info(`not built in this version, skipped: ${notBuilt.join(', ')}`);

  let runtime: ControllerRuntime;
  try {
    runtime = await runControllers({
      name: MANAGER_NAME,
      controllers: loops,
      client,
      rateLimit: { qps: options.qps, burst: options.burst },
      electionClient,
      election: options.election
        ? {
            lease: options.election.lease,
            leaseDurationMs: options.election.leaseDurationMs,
            renewDeadlineMs: options.election.renewDeadlineMs,
            retryPeriodMs: options.election.retryPeriodMs,
            ...(options.election.identity ? { identity: options.election.identity } : {}),
          }
        : false,
      drainTimeoutMs: options.drainTimeoutMs,
      startIntervalMs: options.startIntervalMs,
      // Cached without managedFields (but Leases): no loop reads them. A write from a cached
      // object sends none, and the server keeps the stored ones.
      informerOptions: { resyncPeriodMs: options.loopSettings.minResyncPeriodMs, transform: cacheTransform },
      ...(options.serving ? { serving: options.serving } : {}),
      metrics,
      events: new EventRecorder({ client, component: MANAGER_NAME }),
      // The command handles signals (closeOnSignal), with its own grace.
      signals: false,
      log,
    });
  } catch (error) {
    await Promise.all([client.destroy(), electionClient.destroy()]);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    metrics,
    activity: runtime.activity,
    client,
    serving: runtime.serving,
    identity: runtime.identity,
    running: runtime.running,
    notBuilt,
    leading: () => runtime.leading(),
    synced: () => runtime.synced(),
    firstTerm: runtime.firstTerm,
    close() {
      closing ??= (async () => {
        await runtime.close();
        await Promise.all([client.destroy(), electionClient.destroy()]);
      })();
      return closing;
    },
  };
}
