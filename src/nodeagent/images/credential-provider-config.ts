/**
 * `--image-credential-provider-config`: the kubelet's CredentialProviderConfig
 * (`kubelet.config.k8s.io/v1`), a YAML or JSON file, or a directory of such files (`.json`,
 * `.yaml`, `.yml`, not recursive) whose providers are joined in the lexical order of the file
 * names. Every rule the kubelet checks is checked here, and a problem is a 400 StatusError naming
 * the file and the field, so the agent refuses to start with a clear message.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { badRequest, parseGoDuration, type StatusError } from '../../api/index.js';

export const CREDENTIAL_PROVIDER_CONFIG_KIND = 'CredentialProviderConfig';
/** The config's API versions the kubelet reads (v1 and its older spellings, same fields). */
export const CREDENTIAL_PROVIDER_CONFIG_VERSIONS = ['kubelet.config.k8s.io/v1', 'kubelet.config.k8s.io/v1beta1', 'kubelet.config.k8s.io/v1alpha1'] as const;
/** The exec protocol's versions a provider may ask for (`apiVersion` of a provider). */
export const CREDENTIAL_PROVIDER_API_VERSIONS = ['credentialprovider.kubelet.k8s.io/v1', 'credentialprovider.kubelet.k8s.io/v1beta1', 'credentialprovider.kubelet.k8s.io/v1alpha1'] as const;

const envVarSchema = z.strictObject({ name: z.string().min(1), value: z.string() });

export const credentialProviderSchema = z.strictObject({
  /** The plugin's file name in `--image-credential-provider-bin-dir`. */
  name: z.string(),
  /** Images (registry host globs, optional port and path prefix) the plugin is asked about. */
  matchImages: z.array(z.string()),
  /** A Go duration: how long credentials are cached when the response gives no cacheDuration. */
  defaultCacheDuration: z.string(),
  apiVersion: z.string(),
  args: z.array(z.string()).optional(),
  env: z.array(envVarSchema).optional(),
});

export const credentialProviderConfigSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  providers: z.array(credentialProviderSchema),
});

export type CredentialProviderSpec = z.infer<typeof credentialProviderSchema>;

/** A provider as the agent runs it: its checked spec and the cache duration in milliseconds. */
export interface CredentialProvider extends CredentialProviderSpec {
  readonly defaultCacheDurationMs: number;
}

function problem(source: string, message: string): StatusError {
  return badRequest(`image credential provider config ${source}: ${message}`);
}

/** A Go duration (`12h`, `1m30s`, `0`) in milliseconds; undefined when it is none or negative. */
export function goDurationMs(text: string): number | undefined {
  const nanos = parseGoDuration(text);
  return nanos === undefined || nanos < 0 ? undefined : nanos / 1e6;
}

/**
 * A `matchImages` entry: a host whose labels may hold `*` globs, an optional port and an optional
 * path, with no scheme — the kubelet's rule (`*.registry.io`, `registry.io:8080/path`).
 */
function matchImageProblem(pattern: string): string | undefined {
  if (pattern === '') return 'must not be empty';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pattern)) return 'must not have a scheme';
  const match = /^([^/:]+)(?::(\d+))?(\/.*)?$/.exec(pattern);
  if (!match) return 'is not a host with an optional port and path';
  const labels = match[1]!.split('.');
  if (labels.some((label) => label === '' || !/^[a-zA-Z0-9*?-]+$/.test(label))) return 'has a host label that is empty or holds characters other than letters, digits, "-", "*" and "?"';
  if (match[2] !== undefined && Number(match[2]) > 65535) return 'has a port above 65535';
  return undefined;
}

/** The kubelet's checks of one file's providers; `source` names the file in messages. */
function checkProviders(providers: readonly CredentialProviderSpec[], source: string): CredentialProvider[] {
  return providers.map((provider, i) => {
    const at = `providers[${i}]`;
    if (provider.name === '') throw problem(source, `${at}.name: is required`);
    if (provider.name.includes('/') || provider.name.includes('\\') || provider.name === '.' || provider.name === '..') {
      throw problem(source, `${at}.name: ${JSON.stringify(provider.name)} must be a file name in --image-credential-provider-bin-dir (no path separators, not "." or "..")`);
    }
    if (provider.matchImages.length === 0) throw problem(source, `${at}.matchImages: at least one image is required`);
    for (const pattern of provider.matchImages) {
      const why = matchImageProblem(pattern);
      if (why) throw problem(source, `${at}.matchImages: ${JSON.stringify(pattern)} ${why}`);
    }
    const defaultCacheDurationMs = goDurationMs(provider.defaultCacheDuration);
    if (defaultCacheDurationMs === undefined) throw problem(source, `${at}.defaultCacheDuration: ${JSON.stringify(provider.defaultCacheDuration)} is not a non-negative duration (such as 12h or 0s)`);
    if (!(CREDENTIAL_PROVIDER_API_VERSIONS as readonly string[]).includes(provider.apiVersion)) {
      throw problem(source, `${at}.apiVersion: ${JSON.stringify(provider.apiVersion)} is not supported (one of ${CREDENTIAL_PROVIDER_API_VERSIONS.join(', ')})`);
    }
    return { ...provider, defaultCacheDurationMs };
  });
}

/** Parses one config document (YAML or JSON text). */
export function parseCredentialProviderConfig(text: string, source = ''): CredentialProvider[] {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw problem(source, `not YAML or JSON: ${(error as Error).message}`);
  }
  const parsed = credentialProviderConfigSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw problem(source, `${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  if (parsed.data.kind !== CREDENTIAL_PROVIDER_CONFIG_KIND) throw problem(source, `kind: ${JSON.stringify(parsed.data.kind)} must be ${CREDENTIAL_PROVIDER_CONFIG_KIND}`);
  if (!(CREDENTIAL_PROVIDER_CONFIG_VERSIONS as readonly string[]).includes(parsed.data.apiVersion)) {
    throw problem(source, `apiVersion: ${JSON.stringify(parsed.data.apiVersion)} is not supported (one of ${CREDENTIAL_PROVIDER_CONFIG_VERSIONS.join(', ')})`);
  }
  return checkProviders(parsed.data.providers, source);
}

const CONFIG_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/**
 * Reads `--image-credential-provider-config` (a file, or a directory's config files in lexical
 * order) and checks that each provider's plugin is an executable file of `binDir`. Provider names
 * must be unique across the files.
 */
export function readCredentialProviderConfig(path: string, binDir: string): CredentialProvider[] {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => CONFIG_EXTENSIONS.has(extname(name)))
          .sort()
          .map((name) => join(path, name))
      : [path];
  } catch (error) {
    throw problem(path, `cannot be read: ${(error as Error).message}`);
  }
  if (files.length === 0) throw problem(path, 'the directory holds no .json, .yaml or .yml file');
  const providers: CredentialProvider[] = [];
  const names = new Set<string>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw problem(file, `cannot be read: ${(error as Error).message}`);
    }
    for (const provider of parseCredentialProviderConfig(text, file)) {
      if (names.has(provider.name)) throw problem(file, `provider ${JSON.stringify(provider.name)} is configured twice`);
      names.add(provider.name);
      const plugin = join(binDir, provider.name);
      let mode: number;
      try {
        const stat = statSync(plugin);
        if (!stat.isFile()) throw new Error('not a file');
        mode = stat.mode;
      } catch (error) {
        throw problem(file, `provider ${JSON.stringify(provider.name)}: plugin ${plugin} is missing (${(error as Error).message})`);
      }
      if ((mode & 0o111) === 0) throw problem(file, `provider ${JSON.stringify(provider.name)}: plugin ${plugin} is not executable`);
      providers.push(provider);
    }
  }
  return providers;
}
