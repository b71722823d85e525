/**
 * Image credential provider plugins, the kubelet's exec protocol: for an image a provider's
 * `matchImages` names, the agent runs `<bin-dir>/<name> <args…>` with the provider's `env` added
 * to its own, writes a CredentialProviderRequest (`{"apiVersion", "kind", "image"}`) to its stdin
 * and reads a CredentialProviderResponse from its stdout: `cacheKeyType` (Image, Registry or
 * Global), an optional `cacheDuration`, and `auth` — registry keys (the same globs as matchImages)
 * to a username and password. The answer is cached under the image, its registry or one global key
 * for `cacheDuration` (else the provider's `defaultCacheDuration`; 0 is never cached), and looked up
 * in that order before the plugin runs again. Concurrent pulls of one image share one run. The
 * image a plugin is asked about is the repository without tag or digest, fully qualified
 * (`docker.io/library/busybox`), as the kubelet passes it. Every matching provider is asked; when
 * two answer the same key, the one earlier in the config wins. A plugin that fails (exit status,
 * bad answer, timeout) gives no credentials: the pull goes on with the others, as upstream.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type * as T from '../cri/index.js';
import type { FileLog } from '../log/index.js';
import type { CredentialProvider } from './credential-provider-config.js';
import { goDurationMs } from './credential-provider-config.js';
import type { ImageName } from './image-name.js';
import { credentialsForEntries, registryKeyMatches, type DockerConfigEntry } from './pull-secrets.js';

export const CREDENTIAL_PROVIDER_REQUEST_KIND = 'CredentialProviderRequest';
export const CREDENTIAL_PROVIDER_RESPONSE_KIND = 'CredentialProviderResponse';
/** The kubelet gives a plugin a minute to answer. */
export const CREDENTIAL_PLUGIN_TIMEOUT_MS = 60_000;
/** What a plugin may write before the agent stops reading it (a response is a few KB). */
const MAX_RESPONSE_BYTES = 1 << 20;

type CacheKeyType = 'Image' | 'Registry' | 'Global';
const GLOBAL_CACHE_KEY = 'global';

interface CachedAnswer {
  readonly entries: readonly (readonly [string, DockerConfigEntry])[];
  readonly expiresAt: number;
}

export interface CredentialProvidersOptions {
  readonly providers: readonly CredentialProvider[];
  /** `--image-credential-provider-bin-dir`. */
  readonly binDir: string;
  readonly now?: () => number;
  readonly timeoutMs?: number;
  /** A plugin that failed (its answer ignored). */
  readonly onError?: (provider: string, image: string, error: Error) => void;
  /** Each plugin run at -v 4, cache hits at -v 5. */
  readonly log?: FileLog | undefined;
}

/** The image as the request names it: registry and repository, no tag or digest. */
export function requestImage(image: ImageName): string {
  return `${image.registry}/${image.repository}`;
}

function parseResponse(stdout: string, apiVersion: string): { cacheKeyType: CacheKeyType; cacheDurationMs: number | undefined; entries: [string, DockerConfigEntry][] } {
  let document: unknown;
  try {
    document = JSON.parse(stdout);
  } catch (error) {
    throw new Error(`the plugin's answer is not JSON: ${(error as Error).message}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new Error('the plugin answered no object');
  const response = document as Record<string, unknown>;
  if (response['kind'] !== CREDENTIAL_PROVIDER_RESPONSE_KIND) throw new Error(`kind ${JSON.stringify(response['kind'])} is not ${CREDENTIAL_PROVIDER_RESPONSE_KIND}`);
  if (response['apiVersion'] !== apiVersion) throw new Error(`apiVersion from credential plugin response did not match expected apiVersion: ${JSON.stringify(response['apiVersion'])}, expected ${apiVersion}`);
  const cacheKeyType = response['cacheKeyType'];
  if (cacheKeyType !== 'Image' && cacheKeyType !== 'Registry' && cacheKeyType !== 'Global') throw new Error(`cacheKeyType ${JSON.stringify(cacheKeyType)} is not Image, Registry or Global`);
  let cacheDurationMs: number | undefined;
  if (response['cacheDuration'] !== undefined && response['cacheDuration'] !== null) {
    cacheDurationMs = typeof response['cacheDuration'] === 'string' ? goDurationMs(response['cacheDuration']) : undefined;
    if (cacheDurationMs === undefined) throw new Error(`cacheDuration ${JSON.stringify(response['cacheDuration'])} is not a non-negative duration`);
  }
  const auth = response['auth'] ?? {};
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth)) throw new Error('auth is not an object');
  const entries: [string, DockerConfigEntry][] = [];
  for (const [key, value] of Object.entries(auth)) {
    if (typeof value !== 'object' || value === null) throw new Error(`auth[${JSON.stringify(key)}] is not an object`);
    const { username, password } = value as Record<string, unknown>;
    entries.push([key, { username: typeof username === 'string' ? username : '', password: typeof password === 'string' ? password : '' }]);
  }
  return { cacheKeyType, cacheDurationMs, entries };
}

/** One plugin: its runs, its cache and the runs in flight. */
class PluginProvider {
  readonly #cache = new Map<string, CachedAnswer>();
  readonly #inFlight = new Map<string, Promise<readonly (readonly [string, DockerConfigEntry])[]>>();

  constructor(
    readonly provider: CredentialProvider,
    readonly options: CredentialProvidersOptions,
  ) {}

  matches(image: ImageName): boolean {
    return this.provider.matchImages.some((pattern) => registryKeyMatches(pattern, image));
  }

  /** The cached answer for the image, its registry, or the global key, in that order. */
  #cached(image: ImageName, now: number): CachedAnswer | undefined {
    for (const key of [requestImage(image), image.registry, GLOBAL_CACHE_KEY]) {
      const hit = this.#cache.get(key);
      if (!hit) continue;
      if (hit.expiresAt > now) return hit;
      this.#cache.delete(key);
    }
    return undefined;
  }

  provide(image: ImageName): Promise<readonly (readonly [string, DockerConfigEntry])[]> {
    const now = this.options.now ?? Date.now;
    const cached = this.#cached(image, now());
    if (cached) {
      this.options.log?.info(5, `credential provider ${this.provider.name}: cached credentials for ${requestImage(image)}`);
      return Promise.resolve(cached.entries);
    }
    const key = requestImage(image);
    const running = this.#inFlight.get(key);
    if (running) return running;
    const run = this.#run(image)
      .then((answer) => {
        const durationMs = answer.cacheDurationMs ?? this.provider.defaultCacheDurationMs;
        if (durationMs > 0) {
          const cacheKey = answer.cacheKeyType === 'Image' ? key : answer.cacheKeyType === 'Registry' ? image.registry : GLOBAL_CACHE_KEY;
          this.#cache.set(cacheKey, { entries: answer.entries, expiresAt: now() + durationMs });
        }
        return answer.entries;
      })
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, run);
    return run;
  }

  #run(image: ImageName): Promise<ReturnType<typeof parseResponse>> {
    const plugin = join(this.options.binDir, this.provider.name);
    const request = JSON.stringify({ apiVersion: this.provider.apiVersion, kind: CREDENTIAL_PROVIDER_REQUEST_KIND, image: requestImage(image) });
    this.options.log?.info(4, `credential provider ${this.provider.name}: running ${plugin} for ${requestImage(image)}`);
    const env = { ...process.env, ...Object.fromEntries((this.provider.env ?? []).map((e) => [e.name, e.value])) };
    return new Promise((resolve, reject) => {
      const child = spawn(plugin, this.provider.args ?? [], { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: this.options.timeoutMs ?? CREDENTIAL_PLUGIN_TIMEOUT_MS });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) child.kill('SIGKILL');
        else out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (err.reduce((n, b) => n + b.length, 0) < 4096) err.push(chunk);
      });
      child.on('error', reject);
      // A plugin that exits without reading its stdin makes the write fail (EPIPE): its exit says why.
      child.stdin.on('error', () => undefined);
      child.on('close', (code, signal) => {
        const stderr = Buffer.concat(err).toString('utf8').trim();
        if (size > MAX_RESPONSE_BYTES) return reject(new Error(`the plugin wrote more than ${MAX_RESPONSE_BYTES} bytes`));
        if (signal) return reject(new Error(`the plugin was ended by ${signal}${signal === 'SIGTERM' ? ' (no answer in time)' : ''}${stderr ? `: ${stderr}` : ''}`));
        if (code !== 0) return reject(new Error(`the plugin exited with status ${code}${stderr ? `: ${stderr}` : ''}`));
        try {
          resolve(parseResponse(Buffer.concat(out).toString('utf8'), this.provider.apiVersion));
        } catch (error) {
          reject(error as Error);
        }
      });
      child.stdin.end(request);
    });
  }
}

/** The configured providers: credentials for an image from every provider that matches it. */
export class CredentialProviders {
  readonly #plugins: PluginProvider[];
  readonly #options: CredentialProvidersOptions;

  constructor(options: CredentialProvidersOptions) {
    this.#options = options;
    this.#plugins = options.providers.map((provider) => new PluginProvider(provider, options));
  }

  /** The credentials for `image`, most specific key first; none when no provider matches or answers. */
  async lookup(image: ImageName): Promise<T.AuthConfig[]> {
    const matching = this.#plugins.filter((plugin) => plugin.matches(image));
    if (matching.length === 0) return [];
    const answers = await Promise.all(
      matching.map((plugin) =>
        plugin.provide(image).catch((error: unknown) => {
          this.#options.onError?.(plugin.provider.name, requestImage(image), error as Error);
          return [];
        }),
      ),
    );
    // Earlier providers win a key both answer.
    const merged = new Map<string, DockerConfigEntry>();
    for (const entries of answers) for (const [key, entry] of entries) if (!merged.has(key)) merged.set(key, entry);
    return credentialsForEntries(image, merged);
  }
}
