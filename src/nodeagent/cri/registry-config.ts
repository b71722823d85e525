/**
 * A node's registry configuration, in the shape of k3s's `registries.yaml` (which users behind
 * firewalls already write): `mirrors` — per registry, the endpoints to pull from instead (tried in
 * order, the registry itself last) and repository rewrites for them — and `configs` — per
 * registry host, credentials and TLS. It becomes containerd's hosts.toml files (registry-hosts.ts)
 * and the CRI plugin's per-host auth (containerd-config.ts); rewrites are the agent's
 * (images/image-rewrite.ts), since containerd 1.6 has none.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { badRequest, type StatusError } from '../../api/index.js';

const authSchema = z.strictObject({
  username: z.string().optional(),
  password: z.string().optional(),
  /** base64 of `username:password`, as in a Docker config. */
  auth: z.string().optional(),
  identity_token: z.string().optional(),
});

const tlsSchema = z.strictObject({
  ca_file: z.string().optional(),
  cert_file: z.string().optional(),
  key_file: z.string().optional(),
  insecure_skip_verify: z.boolean().optional(),
});

const mirrorSchema = z.strictObject({
  endpoint: z.array(z.string()).optional(),
  /** Regular expression on the repository path → replacement (`$1`…), applied to mirror pulls. */
  rewrite: z.record(z.string(), z.string()).optional(),
});

const hostConfigSchema = z.strictObject({ auth: authSchema.optional(), tls: tlsSchema.optional() });

export const registryConfigSchema = z.strictObject({
  mirrors: z.record(z.string(), mirrorSchema).optional(),
  configs: z.record(z.string(), hostConfigSchema).optional(),
});

export type RegistryConfig = z.infer<typeof registryConfigSchema>;
export type RegistryHostConfig = z.infer<typeof hostConfigSchema>;

/** A registry host (and port) as image names carry it: `docker.io`, `127.0.0.1:5000`, `[::1]:5000`. */
const HOST = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::[0-9]{1,5})?$/;

/** Hosts whose registries are reached over plain HTTP when no scheme says otherwise: this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:[0-9]+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127(?:\.\d{1,3}){3}$/.test(name);
}

/**
 * An endpoint as a URL: a bare host gets `http://` on loopback, `https://` elsewhere (k3s does
 * the same) — and always `https://` when `tls` says its host has a TLS configuration.
 */
export function endpointUrl(endpoint: string, tls: (host: string) => boolean = () => false): URL {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint)) return new URL(endpoint);
  const host = endpoint.split('/')[0] ?? '';
  return new URL(`${isLoopbackHost(host) && !tls(host) ? 'http' : 'https'}://${endpoint}`);
}

function problem(source: string, message: string): StatusError {
  return badRequest(`registry configuration ${source}: ${message}`);
}

/**
 * Checks what the schema cannot: registry names are hosts (no `*`: containerd 1.6 has no
 * catch-all), endpoints are http(s) URLs without query or credentials, rewrites compile, a client
 * certificate comes with its key, auth has a username and password or `auth` or a token.
 */
export function validateRegistryConfig(config: RegistryConfig, source = ''): RegistryConfig {
  const where = source ? `${source}` : '';
  for (const [registry, mirror] of Object.entries(config.mirrors ?? {})) {
    if (!HOST.test(registry)) throw problem(where, `mirrors: ${JSON.stringify(registry)} is not a registry host (a name or IP, with an optional port; "*" is not supported)`);
    for (const endpoint of mirror.endpoint ?? []) {
      let url: URL;
      try {
        url = endpointUrl(endpoint);
      } catch {
        throw problem(where, `mirrors.${registry}.endpoint: ${JSON.stringify(endpoint)} is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw problem(where, `mirrors.${registry}.endpoint: ${JSON.stringify(endpoint)} must be http:// or https://`);
      if (url.search || url.hash || url.username || url.password) throw problem(where, `mirrors.${registry}.endpoint: ${JSON.stringify(endpoint)} must have no query, fragment or credentials (put credentials in configs)`);
    }
    for (const pattern of Object.keys(mirror.rewrite ?? {})) {
      try {
        new RegExp(pattern);
      } catch (error) {
        throw problem(where, `mirrors.${registry}.rewrite: ${JSON.stringify(pattern)} is not a regular expression (${(error as Error).message})`);
      }
    }
  }
  for (const [host, hostConfig] of Object.entries(config.configs ?? {})) {
    if (!HOST.test(host)) throw problem(where, `configs: ${JSON.stringify(host)} is not a registry host (a name or IP, with an optional port)`);
    const tls = hostConfig.tls;
    if (tls && Boolean(tls.cert_file) !== Boolean(tls.key_file)) throw problem(where, `configs.${host}.tls: cert_file and key_file go together`);
    const auth = hostConfig.auth;
    if (auth && !auth.auth && !auth.identity_token && (auth.username === undefined || auth.password === undefined)) {
      throw problem(where, `configs.${host}.auth: needs username and password, auth, or identity_token`);
    }
  }
  return config;
}

/** Parses a registries.yaml text (YAML or JSON); a 400 StatusError names what is wrong. */
export function parseRegistryConfig(text: string, source = ''): RegistryConfig {
  let document: unknown;
  try {
    document = parse(text) ?? {};
  } catch (error) {
    throw problem(source, `not YAML: ${(error as Error).message}`);
  }
  const parsed = registryConfigSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw problem(source, `${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  return validateRegistryConfig(parsed.data, source);
}

/** Reads and parses a registries.yaml file. */
export function readRegistryConfig(path: string): RegistryConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw problem(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseRegistryConfig(text, path);
}
