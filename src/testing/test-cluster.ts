import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { isStatusError, unauthorized, type ResourceRegistry } from '../api/index.js';
import { buildApp, type ApiServerOptions, type UserInfo } from '../apiserver/index.js';
import { selfSignedCertificate, type PemPair } from '../encoding/index.js';
import { MemoryStore, type Store } from '../storage/index.js';
import {
  builtin,
  Client,
  customResourceDefinitions,
  type ClientOptions,
  type ConnectionOptions,
  type CustomObject,
  type CustomResource,
} from '../client/index.js';
import {
  selectControllers,
  startControllerManager,
  type ControllerManagerOptions,
  type ControllerName,
  type LoopRegistry,
  type LoopSettings,
  type RunningControllerManager,
} from '../../controllers/index.js';
import { ReadRefusals } from './read-refusals.js';
import { WriteTap } from './write-tap.js';

/** API server options a test may set (the rest is the kit's: memory store, HTTPS, one token). */
export type TestApiServerOptions = Pick<
  ApiServerOptions,
  'watchHistoryWindowMs' | 'bookmarkIntervalMs' | 'watchWriteIntervalMs' | 'watchBufferEvents' | 'watchSocketBudgetBytes' | 'turnBudgetMs' | 'tooLargeResourceVersionWaitMs' | 'featureGates' | 'admissionPlugins' | 'maxRequestBodyBytes' | 'serviceNetwork'
>;

/** What the controller manager runs, when a test asks for its loops. */
export interface TestControllersOptions {
  /** The loops by name (`controller-names.ts`); default: those `--controllers=*` selects. */
  readonly controllers?: readonly ControllerName[];
  /** Settings beside the defaults; `rootCa` defaults to the test server's own certificate. */
  readonly loopSettings?: Partial<LoopSettings>;
  /** Loops to run beside (or instead of) the built-in ones, by name. Default `builtinLoops()`. */
  readonly loops?: LoopRegistry;
  /** Longest drain of a loop when the cluster stops. Default 2 s. */
  readonly drainTimeoutMs?: number;
}

export interface TestClusterOptions {
  /** Types served, as built-in types are (no CRD to create): default the built-in registry. */
  readonly registry?: ResourceRegistry;
  /** Custom resources whose CRDs are created, and waited for until their type is served. */
  readonly customResources?: readonly CustomResource<CustomObject<unknown, unknown>>[];
  /** Namespaces created before the cluster is handed over (`default` always exists). */
  readonly namespaces?: readonly string[];
  /** Start the controller manager's loops too: `true` for the default set, or which and how. */
  readonly controllers?: boolean | TestControllersOptions;
  readonly apiServer?: TestApiServerOptions;
}

/**
 * An API server in this process on a memory store, served over HTTPS on a free loopback port with
 * its own certificate and a random admin token, and a client of it. Stopped by `stop()` or `await using`.
 */
export interface TestCluster extends AsyncDisposable {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** PEM of the serving certificate, which clients trust (it is its own CA). */
  readonly caPem: string;
  /** The bearer token of an admin (`system:masters`). */
  readonly token: string;
  /** What a `Client` (or the controller manager) needs to reach the server as the admin. */
  readonly connection: ConnectionOptions;
  /** An admin client, destroyed with the cluster. */
  readonly client: Client;
  /** The server's store: `await store.revision()` moves with every write. */
  readonly store: Store;
  /** The controller manager, when started (`controllers` option or `startControllers`). */
  readonly manager: RunningControllerManager | undefined;
  /** Writes the server answered since it started, all clients' or one `User-Agent`'s. */
  writes(userAgent?: string): number;
  /** The server's tap on writes, by `User-Agent` (what `Recorder` and `Replayer` use). */
  readonly writeTap: WriteTap;
  /**
   * Has the server refuse the next `times` reads of `userAgent` whose path (with the query)
   * `which` accepts, with a 429 TooManyRequests Status as its flow control does under load.
   */
  refuseReads(userAgent: string, which: (path: string) => boolean, times?: number): { refused(): number };
  /** A new admin client, destroyed with the cluster. */
  newClient(options?: Partial<ClientOptions>): Client;
  /** Starts the controller manager's loops (leading from the start); resolves once they run. */
  startControllers(options?: TestControllersOptions): Promise<RunningControllerManager>;
  /** Stops the controller manager (its loops drained), so `startControllers` may start a fresh one: a restart. */
  stopControllers(): Promise<void>;
  /** Stops the controller manager (its loops drained), the clients and the server. Idempotent. */
  stop(): Promise<void>;
}

const ADMIN: UserInfo = { name: 'svc-testing-admin', uid: 'svc-testing-admin', groups: ['system:masters', 'system:authenticated'] };

// One certificate per process: making a key pair is the slowest part of starting a server.
let certificate: PemPair | undefined;
function servingCertificate(): PemPair {
  const now = Date.now();
  certificate ??= selfSignedCertificate({
    commonName: 'svc-testing',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * 86_400_000),
  });
  return certificate;
}

/**
 * Starts an API server in-process on a memory store, over real HTTPS with a real token, and
 * hands back a client; with `controllers`, the controller manager's loops run against it too.
 *
 * @example
 * await using cluster = await startTestCluster({ namespaces: ['demo'] });
 * await cluster.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'demo' } });
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const { cert, key } = servingCertificate();
  const token = randomBytes(24).toString('base64url');
  const bearer = `Bearer ${token}`;
  const store = new MemoryStore();
  const app = await buildApp({
    store,
    ...(options.registry ? { registry: options.registry } : {}),
    ...options.apiServer,
    authenticate: (headers) => {
      const auth = headers['authorization'];
      if (auth === undefined) return undefined;
      if (auth === bearer) return ADMIN;
      throw unauthorized('Unauthorized');
    },
    https: { cert, key },
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const writeTap = new WriteTap();
  writeTap.install(app);
  const readRefusals = new ReadRefusals();
  readRefusals.install(app);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await app.close();
    await store.close();
    throw error;
  }
  const url = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const connection: ConnectionOptions = { server: url, token, caData: cert };
  const clients: Client[] = [];
  const newClient = (extra: Partial<ClientOptions> = {}): Client => {
    const client = new Client({ ...connection, ...extra });
    clients.push(client);
    return client;
  };
  let manager: RunningControllerManager | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      try {
        await manager?.close();
        await Promise.all(clients.map((c) => c.destroy()));
      } finally {
        await app.close();
        await store.close();
      }
    })());

  const cluster: TestCluster = {
    url,
    caPem: cert,
    token,
    connection,
    client: newClient(),
    store,
    get manager() {
      return manager;
    },
    writes: (agent) => writeTap.writes(agent),
    writeTap,
    refuseReads: (agent, which, times) => readRefusals.refuse(agent, which, times),
    newClient,
    async startControllers(controllers = {}) {
      if (manager) throw new Error('the controller manager runs already');
      manager = await startControllerManager(managerOptions(connection, cert, controllers));
      await manager.firstTerm;
      return manager;
    },
    async stopControllers() {
      const running = manager;
      manager = undefined;
      await running?.close();
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
  try {
    for (const name of options.namespaces ?? []) {
      await cluster.client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    // The API server makes no accounts (the serviceaccount loop does): the cluster is handed over
    // as one whose loop has run, so a pod in these namespaces finds its `default` account.
    for (const namespace of [...KIT_NAMESPACES, ...(options.namespaces ?? [])]) await defaultServiceAccount(cluster.client, namespace);
    for (const custom of options.customResources ?? []) await defineAndWait(cluster.client, custom);
    if (options.controllers) await cluster.startControllers(options.controllers === true ? {} : options.controllers);
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

/** The namespaces every cluster has from the start (the API server's system ones). */
const KIT_NAMESPACES = ['default', 'svc-system', 'svc-public', 'svc-node-lease'];

async function defaultServiceAccount(client: Client, namespace: string): Promise<void> {
  try {
    await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } }, { namespace });
  } catch (error) {
    // 404: a registry without ServiceAccounts; 409: made already.
    if (!isStatusError(error) || (error.code !== 404 && error.code !== 409)) throw error;
  }
}

function managerOptions(connection: ConnectionOptions, rootCa: string, options: TestControllersOptions): ControllerManagerOptions {
  return {
    connection,
    contentType: 'application/json',
    // A test's bursts are small: the bucket must not be what a test waits on.
    qps: 1_000,
    burst: 1_000,
    controllers: options.controllers ?? selectControllers(['*']),
    ...(options.loops ? { loops: options.loops } : {}),
    loopSettings: {
      concurrentNamespaceSyncs: 10,
      namespaceSyncPeriodMs: 300_000,
      concurrentGcSyncs: 20,
      minResyncPeriodMs: 0,
      rootCa,
      ...options.loopSettings,
    },
    enableGarbageCollector: true,
    drainTimeoutMs: options.drainTimeoutMs ?? 2_000,
    startIntervalMs: 0,
    userAgent: 'svc-testing/controller-manager',
  };
}

/** Creates the CRD and resolves once its type answers a list (the server serves it). */
async function defineAndWait(client: Client, custom: CustomResource<CustomObject<unknown, unknown>>): Promise<void> {
  await client.create(customResourceDefinitions, custom.definition);
  const guard = Date.now() + 30_000;
  for (;;) {
    try {
      await client.list(custom.resource, { limit: 1 });
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 404 || Date.now() > guard) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
