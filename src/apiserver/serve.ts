import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { openStore, type BackendName } from '../storage/index.js';
import { buildApp } from './app.js';
import { ADMIN_USER, ensureAdminToken, readTokenFile, tokenAuthenticator } from './authn/index.js';
import { ensurePki, loadServingCertificate, servingNames } from './pki.js';

/**
 * Running the API server for real: TLS material, tokens, the store and `listen`. `buildApp`
 * stays free of all of it so tests can `inject` without any of this. (The admin svcconfig is
 * written by the CLI layer: the apiserver layer does not import the client.)
 */

export interface ApiServerConfig {
  /** Holds state.db (sqlite), pki/, admin-token and admin.svcconfig; created if missing. */
  readonly dataDir: string;
  readonly storage: BackendName;
  readonly etcdServers?: readonly string[] | undefined;
  /** etcd key prefix, ending with `/`. */
  readonly etcdPrefix?: string | undefined;
  readonly bindAddress: string;
  /** 0 picks a free port (see `RunningApiServer.port`). */
  readonly securePort: number;
  /** The serving certificate and key; without them the server uses its own CA in `<dataDir>/pki`. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly tokenAuthFile?: string | undefined;
  readonly featureGates?: Readonly<Record<string, boolean>> | undefined;
  readonly maxRequestBodyBytes?: number | undefined;
  readonly minRequestTimeoutSeconds?: number | undefined;
  readonly watchHistoryWindowMs?: number | undefined;
  readonly bookmarkIntervalMs?: number | undefined;
  readonly watchBufferEvents?: number | undefined;
  /** Admission plugins turned on and off beyond the defaults. */
  readonly admissionPlugins?: { readonly enable?: readonly string[]; readonly disable?: readonly string[] } | undefined;
  /** `-v`: 0 warnings and errors, 2 requests, 4 debug, 6 trace. */
  readonly verbosity?: number | undefined;
  /** Where logs go (default stderr, so stdout carries only what the command prints). */
  readonly logStream?: NodeJS.WritableStream | undefined;
}

export interface ServingApiServer {
  /** The URL clients use: loopback when bound to every interface. */
  readonly url: string;
  /** The address listened on: `https://<bind-address>:<port>`. */
  readonly listenUrl: string;
  readonly port: number;
  /** PEM of the CA clients must trust; `undefined` when a given certificate chains to no root in its file. */
  readonly caPem: string | undefined;
  readonly adminToken: string;
  /** Stops listening (open requests and watches end), then closes the store. Idempotent. */
  close(): Promise<void>;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

function logLevel(verbosity: number): string {
  if (verbosity >= 6) return 'trace';
  if (verbosity >= 4) return 'debug';
  if (verbosity >= 2) return 'info';
  return 'warn';
}

/** `host:port` in a URL, with IPv6 literals bracketed. */
function urlFor(host: string, port: number): string {
  return `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** Starts serving; resolves once the port is bound. */
export async function serveApiServer(config: ApiServerConfig): Promise<ServingApiServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });

  // Everything that can fail on bad input is checked before the store is opened and the port bound.
  const serving = config.tls
    ? await loadServingCertificate(config.tls.certFile, config.tls.keyFile)
    : await ensurePki(join(config.dataDir, 'pki'), servingNames(config.bindAddress));
  const adminToken = await ensureAdminToken(config.dataDir);
  const fileTokens = config.tokenAuthFile !== undefined ? await readTokenFile(config.tokenAuthFile) : [];
  const authenticate = tokenAuthenticator([...fileTokens, { token: adminToken, user: ADMIN_USER }]);

  const opened = await openStore({
    backend: config.storage,
    dataDir: config.dataDir,
    ...(config.storage === 'etcd' ? { etcdServers: [...(config.etcdServers ?? [])], prefix: config.etcdPrefix } : {}),
  });
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp({
      store: opened.store,
      authenticate,
      maxRequestBodyBytes: config.maxRequestBodyBytes,
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
      watchHistoryWindowMs: config.watchHistoryWindowMs,
      bookmarkIntervalMs: config.bookmarkIntervalMs,
      watchBufferEvents: config.watchBufferEvents,
      featureGates: config.featureGates,
      admissionPlugins: config.admissionPlugins,
      logger: { level: logLevel(config.verbosity ?? 0), stream: config.logStream ?? process.stderr },
      https: { cert: serving.cert, key: serving.key },
      // Derived from persisted state, so continue tokens stay good across a restart.
      continueTokenKey: createHash('sha256').update('svc continue tokens\n').update(adminToken).digest(),
    });
  } catch (error) {
    await opened.close();
    throw error;
  }

  try {
    await app.listen({ host: config.bindAddress, port: config.securePort });
  } catch (error) {
    await app.close();
    await opened.close();
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EADDRINUSE' ? 'the address is in use' : code === 'EADDRNOTAVAIL' ? 'no such local address' : (error as Error).message;
    throw new Error(`cannot listen on ${urlFor(config.bindAddress, config.securePort)}: ${reason}`);
  }

  const port = (app.server.address() as AddressInfo).port;
  const clientHost = UNSPECIFIED.has(config.bindAddress) ? '127.0.0.1' : config.bindAddress;
  const url = urlFor(clientHost, port);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      try {
        await app.close();
      } finally {
        await opened.close();
      }
    })());
  return { url, listenUrl: urlFor(config.bindAddress, port), port, caPem: serving.caPem, adminToken, close };
}
