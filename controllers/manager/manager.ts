import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { apiThrottle } from '../../operators/index.js';
import { Client, jsonCodec, loadProtobufCodec, type Codec, type ConnectionOptions } from '../../src/client/index.js';
import type { ControlLoop } from '../context.js';
import type { ControllerName } from './controller-names.js';
import type { HealthCheck } from './health.js';
import { runLeadership, type ElectionSettings, type Leadership } from './leadership.js';
import { builtinLoops, type LoopRegistry, type LoopSettings } from './loop-registry.js';
import { silentLog, type ManagerLog } from './log.js';
import { ManagerMetrics, type MetricsOptions } from './metrics.js';
import type { RequestAuth } from './request-auth.js';
import { startServing, type Serving, type ServingTls } from './serving.js';
import { startTerm, type Term } from './term.js';

/**
 * The controller manager: clients to the API server (throttled), the selected control loops run
 * in terms of leadership, and the secure port. The CLI turns flags into these options; tests and
 * `svc up` call `startControllerManager` directly.
 */

export const JSON_CONTENT_TYPE = 'application/json';
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.svc.protobuf';

export interface ControllerManagerOptions {
  /** Where the API server is and who to be (a resolved svcconfig, `--master` applied). */
  readonly connection: ConnectionOptions;
  /** `--svc-api-content-type`: `application/vnd.svc.protobuf` (the client's protobuf codec) or `application/json`. */
  readonly contentType: string;
  readonly qps: number;
  readonly burst: number;
  /** The controllers `--controllers` selected, in order. */
  readonly controllers: readonly ControllerName[];
  /** Default: `builtinLoops()`. */
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
  /** The user agent of the manager's requests. */
  readonly userAgent?: string;
  readonly log?: ManagerLog;
}

export interface RunningControllerManager {
  readonly metrics: ManagerMetrics;
  /** The client the loops use (throttled). */
  readonly client: Client;
  readonly serving: Serving | undefined;
  /** The candidate identity in the Lease. */
  readonly identity: string;
  /** Controllers that run in each term; the selected ones without a loop are in `notBuilt`. */
  readonly running: readonly string[];
  readonly notBuilt: readonly string[];
  leading(): boolean;
  /** Resolves when this process first leads. */
  readonly firstTerm: Promise<void>;
  /** Drains the loops (bounded by the shutdown timeout), releases the Lease, stops serving. Idempotent. */
  close(): Promise<void>;
}

export async function startControllerManager(options: ControllerManagerOptions): Promise<RunningControllerManager> {
  const log = options.log ?? silentLog;
  const metrics = new ManagerMetrics(options.metrics);
  // Protobuf for kinds that have a message, JSON for the rest (custom types, patches): the codec decides per object.
  const codec: Codec = options.contentType === PROTOBUF_CONTENT_TYPE ? await loadProtobufCodec() : jsonCodec;
  const userAgent = options.userAgent ?? 'svc-controller-manager';
  const client = new Client({
    ...options.connection,
    codec,
    userAgent,
    throttle: apiThrottle({ qps: options.qps, burst: options.burst, onWait: (ms) => metrics.throttled(ms) }),
  });
  // The lease has its own client and bucket: controller traffic must never delay a renewal.
  const electionClient = new Client({
    ...options.connection,
    codec,
    userAgent: `${userAgent}/leader-election`,
    throttle: apiThrottle({ qps: options.qps, burst: options.burst }),
  });

  const registry = options.loops ?? builtinLoops();
  const loops = new Map<string, ControlLoop>();
  const notBuilt: string[] = [];
  for (const name of options.controllers) {
    if (name === 'garbage-collector-controller' && !options.enableGarbageCollector) {
      log.info('garbage-collector-controller is off: --enable-garbage-collector=false');
      continue;
    }
    const factory = registry.get(name);
    if (factory === undefined) notBuilt.push(name);
    else loops.set(name, factory(options.loopSettings));
  }
  if (notBuilt.length > 0) log.info(`not built in this version, skipped: ${notBuilt.join(', ')}`);

  const identity = options.election?.identity ?? `${hostname()}_${randomUUID()}`;
  let shuttingDown = false;
  const leaderName = options.election?.lease.name ?? 'svc-controller-manager';
  let currentTerm: Term | undefined;
  metrics.leading(leaderName, false);
  let leadership: Leadership | undefined;

  let serving: Serving | undefined;
  if (options.serving) {
    const ping: HealthCheck = () => undefined;
    const shutdown: HealthCheck = () => (shuttingDown ? 'the manager is shutting down' : undefined);
    // A loop that failed stays stopped until the next term: say so where probes look.
    const controllers: HealthCheck = () => {
      const failed = leadership?.leading() && currentTerm ? [...currentTerm.failed] : [];
      return failed.length === 0 ? undefined : failed.map(([name, why]) => `${name}: ${why}`).join('; ');
    };
    try {
      serving = await startServing({
        ...options.serving,
        health: {
          livez: new Map([['ping', ping]]),
          healthz: new Map([
            ['ping', ping],
            ['controllers', controllers],
          ]),
          readyz: new Map([
            ['ping', ping],
            ['controllers', controllers],
            ['shutdown', shutdown],
          ]),
        },
        metrics: () => metrics.render(),
      });
    } catch (error) {
      await Promise.all([client.destroy(), electionClient.destroy()]);
      throw error;
    }
  }

  // Loops start only once the port is up: a manager that cannot serve never takes the Lease.
  const lead: Leadership = runLeadership({
    ...(options.election ? { election: { ...options.election, identity } } : {}),
    client: electionClient,
    log,
    onLeading: (leads) => metrics.leading(leaderName, leads),
    startTerm: () =>
      (currentTerm = startTerm({
        loops,
        client,
        drainTimeoutMs: options.drainTimeoutMs,
        startIntervalMs: options.startIntervalMs,
        informerOptions: { resyncPeriodMs: options.loopSettings.minResyncPeriodMs },
        metrics: (name) => metrics.queue(name),
        log,
      })),
  });

  leadership = lead;

  let closing: Promise<void> | undefined;
  return {
    metrics,
    client,
    serving,
    identity,
    running: [...loops.keys()],
    notBuilt,
    leading: () => lead.leading(),
    firstTerm: lead.firstTerm,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        await lead.stop();
        await serving?.close();
        await Promise.all([client.destroy(), electionClient.destroy()]);
      })();
      return closing;
    },
  };
}
