import { access, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { readSvcconfigFile, resolveSvcconfig, SvcconfigError, type SvcconfigFile, type SvcconfigTarget } from './svcconfig.js';
import { fileTokenSource, type FileTokenSourceOptions } from './token-file.js';
import type { ConnectionOptions } from './transport.js';
import { SERVICE_ACCOUNT_MOUNT_PATH } from '../api/index.js';

/** Where a pod's service-account files are mounted. */
export const IN_CLUSTER_DIR = SERVICE_ACCOUNT_MOUNT_PATH;

export interface EnvConfigOptions {
  /** A config file to use, before anything the environment says (kubectl's `--kubeconfig`): it must exist. */
  readonly path?: string | undefined;
  /** The context to use instead of the current one (config files only). */
  readonly context?: string | undefined;
  /** The environment to read. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Home folder, for `~/.kube/config`. Default `os.homedir()`. */
  readonly homeDir?: string | undefined;
  /** The folder of the in-cluster `token`, `ca.crt` and `namespace` files. Default `IN_CLUSTER_DIR`. */
  readonly inClusterDir?: string | undefined;
  /** How the in-cluster token file is re-read (default: at most once a minute). */
  readonly tokenFile?: FileTokenSourceOptions | undefined;
}

/** Where the configuration came from, and what it says. */
export interface EnvConfig {
  readonly source: 'path' | 'SVCCONFIG' | 'KUBECONFIG' | 'home' | 'in-cluster';
  /** The config files merged (config sources), or the in-cluster token file. */
  readonly files: readonly string[];
  readonly connection: ConnectionOptions & { readonly namespace?: string | undefined };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** What of a svcconfig target a client connects with (also `Client.fromSvcconfig`'s). */
export function fromTarget(target: SvcconfigTarget): EnvConfig['connection'] {
  return {
    server: target.server,
    ...(target.servers.length > 0 ? { servers: target.servers } : {}),
    token: target.token,
    caData: target.caData,
    clientCertificate: target.clientCertificate,
    clientKey: target.clientKey,
    insecureSkipTlsVerify: target.insecureSkipTlsVerify,
    namespace: target.namespace,
  };
}

/** Reads the files of a `KUBECONFIG`-style list that exist, in order (missing ones are skipped, as kubectl does). */
async function readList(list: string): Promise<SvcconfigFile[]> {
  const files: SvcconfigFile[] = [];
  for (const path of list.split(delimiter)) if (path !== '' && (await exists(path))) files.push(await readSvcconfigFile(path));
  return files;
}

/**
 * Finds the client's configuration as kubectl does, first match wins:
 *
 * 1. `options.path` (must exist);
 * 2. `SVCCONFIG`, else `KUBECONFIG`: a list of files (`:`-separated; `;` on Windows) merged —
 *    for clusters, users and contexts the first file to define a name wins, `current-context`
 *    comes from the first file that sets one, missing files are skipped. When the variable is
 *    set, `~/.kube/config` is not consulted (kubectl's rule);
 * 3. `~/.kube/config`;
 * 4. in-cluster: `SVC_SERVICE_HOST`/`SVC_SERVICE_PORT` (else `KUBERNETES_SERVICE_HOST`/`_PORT`),
 *    the service-account token (re-read at most once a minute, so a rotated token is picked up),
 *    `ca.crt` and `namespace` from `options.inClusterDir`.
 *
 * Nothing found is a SvcconfigError naming every place tried.
 */
export async function resolveEnvConfig(options: EnvConfigOptions = {}): Promise<EnvConfig> {
  const env = options.env ?? process.env;
  const select = options.context !== undefined ? { context: options.context } : {};
  if (options.path !== undefined) {
    return { source: 'path', files: [options.path], connection: fromTarget(await resolveSvcconfig([await readSvcconfigFile(options.path)], select)) };
  }
  const tried: string[] = [];
  for (const variable of ['SVCCONFIG', 'KUBECONFIG'] as const) {
    const list = env[variable];
    if (list === undefined || list === '') continue;
    const files = await readList(list);
    if (files.length > 0) {
      return { source: variable, files: files.map((f) => f.path), connection: fromTarget(await resolveSvcconfig(files, select)) };
    }
    tried.push(`${variable}=${list} (no such file)`);
    break;
  }
  if (tried.length === 0) {
    const home = join(options.homeDir ?? homedir(), '.kube', 'config');
    if (await exists(home)) return { source: 'home', files: [home], connection: fromTarget(await resolveSvcconfig([await readSvcconfigFile(home)], select)) };
    tried.push(`${home} (no such file)`);
  }
  const inCluster = await inClusterConfig(env, options.inClusterDir ?? IN_CLUSTER_DIR, options.tokenFile);
  if ('connection' in inCluster) return inCluster;
  tried.push(`in-cluster (${inCluster.missing})`);
  throw new SvcconfigError(`no client configuration found; tried: ${tried.join('; ')}`);
}

async function inClusterConfig(env: Readonly<Record<string, string | undefined>>, dir: string, tokenOptions: FileTokenSourceOptions | undefined): Promise<EnvConfig | { missing: string }> {
  const [hostVar, portVar] = env['SVC_SERVICE_HOST'] ? ['SVC_SERVICE_HOST', 'SVC_SERVICE_PORT'] : ['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'];
  const host = env[hostVar];
  const port = env[portVar];
  if (!host || !port) return { missing: `${hostVar} and ${portVar} are not both set` };
  const tokenPath = join(dir, 'token');
  const tokenSource = fileTokenSource(tokenPath, tokenOptions);
  try {
    await tokenSource();
  } catch (error) {
    return { missing: `cannot read ${tokenPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  const optional = (name: string) => readFile(join(dir, name), 'utf8').catch(() => undefined);
  const [caData, namespace] = await Promise.all([optional('ca.crt'), optional('namespace')]);
  const server = `https://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
  return {
    source: 'in-cluster',
    files: [tokenPath],
    connection: { server, tokenSource, caData, namespace: namespace?.trim() || undefined },
  };
}
