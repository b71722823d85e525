/**
 * Pull secrets to CRI credentials. A `kubernetes.io/dockerconfigjson` secret holds
 * `.dockerconfigjson` = `{"auths": {"<registry>": {...}}}`, a `kubernetes.io/dockercfg` one holds
 * `.dockercfg` = `{"<registry>": {...}}`. Each entry's key names a registry the way Docker's config
 * does: a host, `https://host/v1/`, `host:port`, optionally a path prefix, and (as the kubelet
 * allows) `*` globs per DNS label. Entries that match the image are returned most specific first;
 * the caller tries each until one pull succeeds, as the kubelet does.
 */
import type { Secret } from '../../api/index.js';
import type * as T from '../cri/index.js';
import { DEFAULT_REGISTRY, type ImageName } from './image-name.js';

export const DOCKER_CONFIG_JSON_TYPE = 'kubernetes.io/dockerconfigjson';
export const DOCKER_CFG_TYPE = 'kubernetes.io/dockercfg';

/** Every name Docker Hub's credentials are stored under. */
const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

export interface DockerConfigEntry {
  username?: unknown;
  password?: unknown;
  auth?: unknown;
  identitytoken?: unknown;
  identityToken?: unknown;
  registrytoken?: unknown;
  registryToken?: unknown;
}

interface ParsedKey {
  readonly host: string;
  readonly port: string;
  readonly path: string;
}

function secretValue(secret: Secret, key: string): string | undefined {
  const data = secret.data?.[key];
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  return secret.stringData?.[key];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The registry entries of one secret; a secret of another type or with broken content gives none. */
export function dockerConfigEntries(secret: Secret): [string, DockerConfigEntry][] {
  let config: unknown;
  if (secret.type === DOCKER_CONFIG_JSON_TYPE) {
    const text = secretValue(secret, '.dockerconfigjson');
    const parsed = text === undefined ? undefined : parseJson(text);
    config = isObject(parsed) ? parsed.auths : undefined;
  } else if (secret.type === DOCKER_CFG_TYPE) {
    const text = secretValue(secret, '.dockercfg');
    config = text === undefined ? undefined : parseJson(text);
  }
  if (!isObject(config)) return [];
  return Object.entries(config).filter((entry): entry is [string, DockerConfigEntry] => isObject(entry[1]));
}

function parseKey(key: string): ParsedKey | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(key) ? key : `https://${key}`;
  // URL() lowercases the host and rejects `*`; split by hand instead.
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/:]+)(?::(\d+))?(\/.*)?$/i.exec(withScheme);
  if (!match) return undefined;
  let host = match[1]!.toLowerCase();
  let path = (match[3] ?? '').replace(/^\/+|\/+$/g, '');
  if (DOCKER_HUB_HOSTS.has(host)) {
    host = DEFAULT_REGISTRY;
    // `https://index.docker.io/v1/` is the registry itself, not a repository prefix.
    if (path === 'v1' || path === 'v2') path = '';
  }
  return { host, port: match[2] ?? '', path };
}

/** Host labels compared one by one; a label may glob (`*` any run, `?` one character), as Go's filepath.Match in the kubelet's keyring. */
function hostMatches(pattern: string, host: string): boolean {
  const patternLabels = pattern.split('.');
  const hostLabels = host.split('.');
  if (patternLabels.length !== hostLabels.length) return false;
  return patternLabels.every((label, i) => {
    if (!/[*?]/.test(label)) return label === hostLabels[i];
    const source = [...label].map((c) => (c === '*' ? '[^.]*' : c === '?' ? '[^.]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
    return new RegExp(`^${source}$`).test(hostLabels[i]!);
  });
}

function registryOf(image: ImageName): ParsedKey {
  const [hostPart, port = ''] = image.registry.split(/:(?=\d+$)/);
  const host = (hostPart ?? image.registry).toLowerCase();
  return { host: DOCKER_HUB_HOSTS.has(host) ? DEFAULT_REGISTRY : host, port, path: image.repository };
}

function keyMatches(key: ParsedKey, image: ParsedKey): boolean {
  if (key.port !== image.port) return false;
  if (!hostMatches(key.host, image.host)) return false;
  return key.path === '' || image.path === key.path || image.path.startsWith(`${key.path}/`);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * `serverAddress` stays empty, as the kubelet leaves it: containerd then uses the credentials for
 * every host of the pull, mirrors included. Set, containerd parses it as a URL and compares its
 * host with each endpoint's: a Docker config key like `127.0.0.1:5000` fails that parse (every
 * pull fails) and `https://index.docker.io/v1/` never equals `registry-1.docker.io` (credentials
 * silently dropped).
 */
function toAuth(entry: DockerConfigEntry): T.AuthConfig {
  let username = str(entry.username);
  let password = str(entry.password);
  const auth = str(entry.auth);
  if (auth && !username && !password) {
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      username = decoded.slice(0, colon);
      password = decoded.slice(colon + 1);
    }
  }
  return {
    username,
    password,
    auth,
    serverAddress: '',
    identityToken: str(entry.identitytoken) || str(entry.identityToken),
    registryToken: str(entry.registrytoken) || str(entry.registryToken),
  };
}

/**
 * Does a registry key (a Docker config key, a credential provider's `matchImages` entry or the key
 * of its response's `auth`) name `image`? Host labels may be `*` globs, the port must be the same,
 * the key's path a prefix of the repository's.
 */
export function registryKeyMatches(key: string, image: ImageName): boolean {
  const parsed = parseKey(key);
  return parsed !== undefined && keyMatches(parsed, registryOf(image));
}

/**
 * The credentials of Docker config entries (key → username, password, auth, tokens) that apply to
 * `image`, most specific key first (a longer path prefix, then an exact host before a glob);
 * earlier entries win ties.
 */
export function credentialsForEntries(image: ImageName, entries: Iterable<readonly [string, DockerConfigEntry]>): T.AuthConfig[] {
  const target = registryOf(image);
  const found: { auth: T.AuthConfig; pathLength: number; exact: boolean; order: number }[] = [];
  let order = 0;
  for (const [key, entry] of entries) {
    const parsed = parseKey(key);
    if (!parsed || !keyMatches(parsed, target)) continue;
    found.push({ auth: toAuth(entry), pathLength: parsed.path.length, exact: !parsed.host.includes('*'), order: order++ });
  }
  found.sort((a, b) => b.pathLength - a.pathLength || Number(b.exact) - Number(a.exact) || a.order - b.order);
  return found.map((f) => f.auth);
}

/** The credentials of `secrets` that apply to `image` (see {@link credentialsForEntries}); secrets earlier in the list win ties. */
export function credentialsForImage(image: ImageName, secrets: readonly Secret[]): T.AuthConfig[] {
  return credentialsForEntries(
    image,
    secrets.flatMap((secret) => dockerConfigEntries(secret)),
  );
}
