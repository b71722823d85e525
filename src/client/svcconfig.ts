import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { z } from 'zod';

/**
 * svcconfig files: the kubeconfig format (YAML, `kind: Config`), so that the file svc writes
 * works with kubectl and every Kubernetes client library, and theirs with svc's client.
 */

/** What a client needs to reach one server as one user. */
export interface SvcconfigEntry {
  /** The base URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /**
   * Further servers of the same cluster (several API servers on one store), written as the
   * cluster extension `servers.svc.io`: svc's client fails over to them, kubectl uses `server`.
   */
  readonly servers?: readonly string[] | undefined;
  /** PEM of the CA that signed the server's certificate; omitted: the system's CAs. */
  readonly caData?: string | Uint8Array | undefined;
  /** Bearer token. */
  readonly token?: string | undefined;
  /** Paths of a client certificate and its key (`client-certificate`, `client-key`): files that may be replaced as the certificate rotates. */
  readonly clientCertificateFile?: string | undefined;
  readonly clientKeyFile?: string | undefined;
  readonly insecureSkipTlsVerify?: boolean | undefined;
  /** Name of the cluster, user and context entries (and the current context). */
  readonly name: string;
}

/** The current context, resolved: where to connect and as whom. */
export interface SvcconfigTarget {
  readonly context: string;
  readonly cluster: string;
  readonly user: string | undefined;
  readonly server: string;
  /** The cluster's further servers (extension `servers.svc.io`), tried in order after `server`; empty for one. */
  readonly servers: readonly string[];
  /** PEM, from `certificate-authority-data` or the file `certificate-authority` names. */
  readonly caData: string | undefined;
  readonly insecureSkipTlsVerify: boolean;
  /** From `token` or the file `tokenFile` names. */
  readonly token: string | undefined;
  /** PEM client certificate, from `client-certificate-data` or the file `client-certificate` names. */
  readonly clientCertificate: string | undefined;
  /** PEM private key of the client certificate, from `client-key-data` or the file `client-key` names. */
  readonly clientKey: string | undefined;
  /** The context's default namespace, when it has one. */
  readonly namespace: string | undefined;
}

export class SvcconfigError extends Error {
  override readonly name = 'SvcconfigError';
}

/** Writes a one-context config to `path` (mode 0600: it holds a credential). */
export async function writeSvcconfig(path: string, entry: SvcconfigEntry): Promise<void> {
  const cluster: Record<string, unknown> = { server: entry.server };
  if (entry.caData !== undefined) cluster['certificate-authority-data'] = Buffer.from(entry.caData).toString('base64');
  if (entry.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  if (entry.servers !== undefined && entry.servers.length > 0) cluster['extensions'] = [{ name: SERVERS_EXTENSION, extension: { servers: [...entry.servers] } }];
  const user: Record<string, string> = {};
  if (entry.token !== undefined) user['token'] = entry.token;
  if (entry.clientCertificateFile !== undefined) user['client-certificate'] = entry.clientCertificateFile;
  if (entry.clientKeyFile !== undefined) user['client-key'] = entry.clientKeyFile;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: entry.name, cluster }],
    users: [{ name: entry.name, user }],
    contexts: [{ name: entry.name, context: { cluster: entry.name, user: entry.name } }],
    'current-context': entry.name,
    preferences: {},
  };
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, stringify(doc), { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/**
 * The name of the cluster extension that lists a cluster's further API servers. kubeconfig has
 * one `server` a cluster; extensions are the format's place for what one client adds, and other
 * clients (kubectl) keep and ignore them.
 */
export const SERVERS_EXTENSION = 'servers.svc.io';

const ServersExtensionSchema = z.object({ servers: z.array(z.string().url()) });

const ClusterSchema = z.object({
  server: z.string(),
  'certificate-authority-data': z.string().optional(),
  'certificate-authority': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  extensions: z.array(z.object({ name: z.string(), extension: z.unknown() })).nullish(),
});
const UserSchema = z.object({
  token: z.string().optional(),
  tokenFile: z.string().optional(),
  'client-certificate-data': z.string().optional(),
  'client-certificate': z.string().optional(),
  'client-key-data': z.string().optional(),
  'client-key': z.string().optional(),
});
const ContextSchema = z.object({ cluster: z.string(), user: z.string().optional(), namespace: z.string().optional() });

// Only what svc reads; other kubeconfig fields (exec plugins, auth providers, extensions)
// are accepted and ignored.
const ConfigSchema = z.object({
  clusters: z.array(z.object({ name: z.string(), cluster: ClusterSchema })).nullish(),
  users: z.array(z.object({ name: z.string(), user: UserSchema.nullish() })).nullish(),
  contexts: z.array(z.object({ name: z.string(), context: ContextSchema })).nullish(),
  'current-context': z.string().optional(),
});

/** One parsed config file: what svc reads of it, and where it lies (file names in it are relative to its folder). */
export interface SvcconfigFile {
  readonly path: string;
  readonly config: z.infer<typeof ConfigSchema>;
}

/** Reads and checks one config file. */
export async function readSvcconfigFile(path: string): Promise<SvcconfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SvcconfigError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new SvcconfigError(`${path}: not YAML (${(error as Error).message})`);
  }
  const parsed = ConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcconfigError(`${path}: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'not a config'}`);
  }
  return { path, config: parsed.data };
}

/**
 * Reads `path` and resolves a context (the current one unless `options.context` names another).
 * File references (`certificate-authority`, `tokenFile`) are relative to the config's folder.
 */
export async function loadSvcconfig(path: string, options: { context?: string } = {}): Promise<SvcconfigTarget> {
  return resolveSvcconfig([await readSvcconfigFile(path)], options);
}

/** The first file's entry of that name, with the file it came from (kubectl's merge: the first to define a name wins). */
function firstNamed<E extends { name: string }>(files: readonly SvcconfigFile[], list: (f: SvcconfigFile) => readonly E[] | null | undefined, name: string): { entry: E; file: SvcconfigFile } | undefined {
  for (const file of files) {
    const entry = list(file)?.find((e) => e.name === name);
    if (entry) return { entry, file };
  }
  return undefined;
}

/**
 * Resolves a context over several files merged as kubectl merges a `KUBECONFIG` list: for
 * clusters, users and contexts the first file to define a name wins; `current-context` comes from
 * the first file that sets one. A file name an entry holds is relative to the folder of the file
 * that defined the entry.
 */
export async function resolveSvcconfig(files: readonly SvcconfigFile[], options: { context?: string } = {}): Promise<SvcconfigTarget> {
  const path = files.map((f) => f.path).join(':');
  const contextName = options.context ?? files.find((f) => f.config['current-context'])?.config['current-context'];
  if (!contextName) throw new SvcconfigError(`${path}: no current-context`);
  const context = firstNamed(files, (f) => f.config.contexts, contextName)?.entry.context;
  if (!context) throw new SvcconfigError(`${path}: context ${JSON.stringify(contextName)} not found`);
  const clusterEntry = firstNamed(files, (f) => f.config.clusters, context.cluster);
  if (!clusterEntry) throw new SvcconfigError(`${path}: cluster ${JSON.stringify(context.cluster)} not found`);
  const cluster = clusterEntry.entry.cluster;
  const servers = furtherServers(cluster, clusterEntry.file.path, context.cluster);
  const userEntry = context.user === undefined ? undefined : firstNamed(files, (f) => f.config.users, context.user);
  if (context.user !== undefined && !userEntry) throw new SvcconfigError(`${path}: user ${JSON.stringify(context.user)} not found`);
  const user = userEntry?.entry;

  const clusterPath = clusterEntry.file.path;
  const clusterBase = dirname(resolve(clusterPath));
  const caFile = cluster['certificate-authority'];
  const caData =
    cluster['certificate-authority-data'] !== undefined
      ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8')
      : caFile !== undefined
        ? await readReferenced(resolve(clusterBase, caFile), clusterPath)
        : undefined;
  const userPath = userEntry?.file.path ?? path;
  const base = dirname(resolve(userPath));
  const clientCertificate = await dataOrFile(user?.user?.['client-certificate-data'], user?.user?.['client-certificate'], base, userPath);
  const clientKey = await dataOrFile(user?.user?.['client-key-data'], user?.user?.['client-key'], base, userPath);
  if ((clientCertificate === undefined) !== (clientKey === undefined)) {
    throw new SvcconfigError(`${userPath}: user ${JSON.stringify(context.user)} has a client certificate or key without the other`);
  }
  const tokenFile = user?.user?.tokenFile;
  const token = user?.user?.token ?? (tokenFile !== undefined ? (await readReferenced(resolve(base, tokenFile), userPath)).trim() : undefined);
  return {
    context: contextName,
    cluster: context.cluster,
    user: context.user,
    server: cluster.server,
    servers,
    caData,
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] ?? false,
    token,
    clientCertificate,
    clientKey,
    namespace: context.namespace,
  };
}

/** The `servers.svc.io` extension's URLs, without `server` itself; a malformed extension is an error, not ignored. */
function furtherServers(cluster: z.infer<typeof ClusterSchema>, path: string, name: string): readonly string[] {
  const entry = cluster.extensions?.find((e) => e.name === SERVERS_EXTENSION);
  if (!entry) return [];
  const parsed = ServersExtensionSchema.safeParse(entry.extension);
  if (!parsed.success) throw new SvcconfigError(`${path}: cluster ${JSON.stringify(name)}: extension ${SERVERS_EXTENSION} must be {servers: [URL, ...]}`);
  return parsed.data.servers.filter((url) => url !== cluster.server);
}

/** A PEM given inline (base64, `*-data`) or by a file name relative to the config's folder. */
async function dataOrFile(data: string | undefined, file: string | undefined, base: string, configPath: string): Promise<string | undefined> {
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  if (file !== undefined) return readReferenced(resolve(base, file), configPath);
  return undefined;
}

async function readReferenced(file: string, configPath: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new SvcconfigError(`${configPath}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
