import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Subject, type Subscription } from 'rxjs';
import { leaderElectedScheduler, scheduler, type ScheduleResult } from '../../controllers/index.js';
import { Client, type ClientOptions } from '../client/index.js';
import { RequestAuth, startServing, type HealthCheck, type Serving } from '../serving/index.js';
import { closeOnSignal, EXIT_FAILED, isExit, processIO, readCommandLine, type CommandIO } from './command.js';
import { checkSchedulerFlags, schedulerDoc, schedulerFlags, type SchedulerFlags } from './scheduler-flags.js';
import { healthPortCertificate } from './self-signed.js';

/** A scheduler started in-process (by `svc-scheduler`, or by `svc up`). */
export interface RunningScheduler {
  /** This replica's identity in the Lease and in Events. */
  readonly identity: string;
  /** `https://host:port` of /healthz and /readyz; undefined with `--secure-port 0`. */
  readonly healthUrl: string | undefined;
  /** Whether it leads now (always true without leader election). */
  leading(): boolean;
  /** Stops scheduling (releasing the Lease), the health port and the client. */
  close(): Promise<void>;
}

/** Everything but the flags `startScheduler` needs; `client` replaces --svcconfig / --master. */
export interface SchedulerStartOptions {
  readonly client?: Client;
  readonly io?: CommandIO;
}

async function clientFor(flags: SchedulerFlags): Promise<Client> {
  // Bounded: a burst of bindings waits for a socket rather than opening one each (its watches have their own).
  const extra: Partial<ClientOptions> = { userAgent: 'svc-scheduler', connections: flags.svcApiConnections };
  if (flags.svcconfig !== undefined) {
    return Client.fromSvcconfig(flags.svcconfig, { ...extra, ...(flags.master !== undefined ? { server: flags.master, servers: [] } : {}) } as Omit<ClientOptions, 'server'>);
  }
  return new Client({ server: flags.master!, ...extra });
}

/** /healthz, /livez and /readyz over HTTPS, open to anyone (probes), through the shared daemon port (src/serving). */
function serveHealth(port: number, address: string, cert: { cert: string; key: string }, ready: () => boolean): Promise<Serving> {
  const ping: HealthCheck = () => undefined;
  const scheduling: HealthCheck = () => (ready() ? undefined : 'the scheduler has stopped');
  return startServing({
    bindAddress: address,
    port,
    tls: cert,
    http2: false,
    profiling: false,
    auth: new RequestAuth({ alwaysAllowPaths: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*'] }),
    health: { livez: new Map([['ping', ping]]), healthz: new Map([['ping', ping]]), readyz: new Map([['ping', ping], ['scheduler', scheduling]]) },
  });
}

/**
 * Starts svc-scheduler in-process from parsed flags: the client, the scheduler (behind leader
 * election unless `--leader-elect=false`) and the health port. Resolves once all three run.
 */
export async function startScheduler(flags: SchedulerFlags, options: SchedulerStartOptions = {}): Promise<RunningScheduler> {
  checkSchedulerFlags(flags);
  const io = options.io ?? processIO;
  const client = options.client ?? (await clientFor(flags));
  const identity = `${hostname()}_${randomUUID()}`;
  let leading = !flags.leaderElect;
  const log = (result: ScheduleResult): void => {
    if (flags.v < 2) return;
    if (result.type === 'bound') io.err(`bound ${result.pod} to ${result.node}`);
    else if (result.type === 'unschedulable') io.err(`unschedulable ${result.pod}: ${result.message}`);
    else io.err(`binding ${result.pod} failed: ${(result.error as Error).message}`);
  };
  const common = {
    client,
    identity,
    bucket: { qps: flags.svcApiQps, burst: flags.svcApiBurst },
    percentageOfNodesToScore: flags.percentageOfNodesToScore,
  };
  // Ends the election on close(): the scheduler stops, the Lease is released, then the results complete.
  const stopElection$ = new Subject<void>();
  let markEnded!: () => void;
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  const results = flags.leaderElect
    ? leaderElectedScheduler({
        ...common,
        stop$: stopElection$,
        lease: { namespace: flags.leaderElectResourceNamespace, name: flags.leaderElectResourceName },
        leaseDuration: flags.leaderElectLeaseDuration,
        renewDeadline: flags.leaderElectRenewDeadline,
        retryPeriod: flags.leaderElectRetryPeriod,
        onLeading: (now) => {
          leading = now;
          io.err(now ? `${identity} leads: scheduling` : `${identity} lost the lease: not scheduling`);
        },
      })
    : scheduler(common);
  const subscription: Subscription = results.subscribe({
    next: log,
    error: (error: unknown) => {
      io.err(`scheduler stopped: ${(error as Error).message}`);
      markEnded();
    },
    complete: markEnded,
  });
  let health: Serving | undefined;
  if (flags.securePort !== 0) {
    try {
      health = await serveHealth(flags.securePort, flags.bindAddress, healthPortCertificate('svc-scheduler'), () => !subscription.closed);
    } catch (error) {
      subscription.unsubscribe();
      if (!options.client) await client.destroy();
      throw error;
    }
  }
  const healthUrl = health?.url;
  return {
    identity,
    healthUrl,
    leading: () => leading,
    async close() {
      if (flags.leaderElect) {
        // The release is awaited, bounded as a renewal is: a server that does not answer holds it no longer.
        stopElection$.next();
        let bound: NodeJS.Timeout | undefined;
        await Promise.race([ended, new Promise((resolve) => (bound = setTimeout(resolve, flags.leaderElectRenewDeadline)))]);
        clearTimeout(bound);
      }
      subscription.unsubscribe();
      await health?.close();
      if (options.client) return;
      const grace = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000).unref());
      if ((await Promise.race([client.close(), grace])) === 'late') await client.destroy();
    },
  };
}

/** svc-scheduler: runs until SIGINT or SIGTERM. */
export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const flags = readCommandLine(schedulerDoc, schedulerFlags, argv, io, (values) => {
    checkSchedulerFlags(values);
    return values;
  });
  if (isExit(flags)) return flags.exitCode;
  let running: RunningScheduler;
  try {
    running = await startScheduler(flags, { io });
  } catch (error) {
    io.err(`svc-scheduler: ${(error as Error).message}`);
    return EXIT_FAILED;
  }
  io.err(`svc-scheduler ${running.identity} started${running.healthUrl ? `; health on ${running.healthUrl}/healthz` : ''}`);
  return closeOnSignal(() => running.close(), io);
}
