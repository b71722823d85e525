/**
 * A registry configuration as containerd's hosts directory: `<dir>/<registry>/hosts.toml` for
 * every registry it names, which the CRI plugin reads at each pull when its `registry.config_path`
 * is `<dir>` (containerd ≥ 1.5; edits need no restart). Each file lists the mirror endpoints first,
 * in order, then the registry itself (`server`) as the last resort, as containerd tries them.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { endpointUrl, isLoopbackHost, type RegistryConfig, type RegistryHostConfig } from './registry-config.js';

const str = (value: string): string => JSON.stringify(value); // TOML basic strings share JSON's escapes

/**
 * Where a registry itself is reached: Docker Hub's API host, plain HTTP on loopback unless the
 * registry has a TLS configuration, else HTTPS.
 */
export function defaultEndpoint(registry: string, tls = false): string {
  if (registry === 'docker.io') return 'https://registry-1.docker.io';
  return `${isLoopbackHost(registry) && !tls ? 'http' : 'https'}://${registry}`;
}

/** The host part of a URL as registries are keyed in `configs` (`127.0.0.1:5000`). */
const hostOf = (url: URL): string => url.host;

function tlsLines(config: RegistryHostConfig | undefined, indent: string): string[] {
  const tls = config?.tls;
  if (!tls) return [];
  return [
    ...(tls.ca_file ? [`${indent}ca = ${str(tls.ca_file)}`] : []),
    ...(tls.cert_file && tls.key_file ? [`${indent}client = [[${str(tls.cert_file)}, ${str(tls.key_file)}]]`] : []),
    ...(tls.insecure_skip_verify ? [`${indent}skip_verify = true`] : []),
  ];
}

/** Every registry the configuration says something about: mirrored ones and configured hosts. */
function registries(config: RegistryConfig): string[] {
  return [...new Set([...Object.keys(config.mirrors ?? {}), ...Object.keys(config.configs ?? {})])].sort();
}

/** `registry → hosts.toml text` for every registry of the configuration. */
export function registryHostsFiles(config: RegistryConfig): Map<string, string> {
  const files = new Map<string, string>();
  const hasTls = (host: string) => config.configs?.[host]?.tls !== undefined;
  for (const registry of registries(config)) {
    const lines = [`server = ${str(defaultEndpoint(registry, hasTls(registry)))}`, ...tlsLines(config.configs?.[registry], '')];
    for (const endpoint of config.mirrors?.[registry]?.endpoint ?? []) {
      const url = endpointUrl(endpoint, hasTls);
      const path = url.pathname.replace(/\/+$/, '');
      // A path other than the API's own is the API root on that host (a registry that serves
      // several mirrors under prefixes): containerd then uses it instead of /v2.
      const override = path !== '' && path !== '/v2';
      const key = `${url.protocol}//${url.host}${override ? path : ''}`;
      lines.push('', `[host.${str(key)}]`, '  capabilities = ["pull", "resolve"]', ...(override ? ['  override_path = true'] : []), ...tlsLines(config.configs?.[hostOf(url)], '  '));
    }
    // containerd 1.6 speaks plain HTTP to a loopback `server` whatever its scheme says; a host
    // entry keeps its https://, so a loopback registry with TLS is listed as one too.
    if (isLoopbackHost(registry) && hasTls(registry)) {
      lines.push('', `[host.${str(defaultEndpoint(registry, true))}]`, '  capabilities = ["pull", "resolve"]', ...tlsLines(config.configs?.[registry], '  '));
    }
    files.set(registry, `${lines.join('\n')}\n`);
  }
  return files;
}

/**
 * Per-host credentials for the CRI plugin's `registry.configs` (hosts.toml has no field for
 * them): keyed by the host containerd asks credentials for — the endpoint's host, so Docker Hub's
 * are filed under `registry-1.docker.io` too.
 */
export function registryAuths(config: RegistryConfig): Map<string, { readonly username?: string; readonly password?: string; readonly auth?: string; readonly identitytoken?: string }> {
  const out = new Map<string, { username?: string; password?: string; auth?: string; identitytoken?: string }>();
  for (const [host, hostConfig] of Object.entries(config.configs ?? {})) {
    const auth = hostConfig.auth;
    if (!auth) continue;
    const entry = {
      ...(auth.username !== undefined ? { username: auth.username } : {}),
      ...(auth.password !== undefined ? { password: auth.password } : {}),
      ...(auth.auth !== undefined ? { auth: auth.auth } : {}),
      ...(auth.identity_token !== undefined ? { identitytoken: auth.identity_token } : {}),
    };
    out.set(host, entry);
    if (host === 'docker.io') out.set(new URL(defaultEndpoint(host)).host, entry);
  }
  return out;
}

/**
 * Writes the configuration's hosts.toml files into `dir`. `replace` (default true, for a
 * directory that is svc's own) first removes what else is there; false leaves other registries'
 * files alone (an operator's /etc/containerd/certs.d).
 */
export function writeRegistryHosts(dir: string, config: RegistryConfig, options: { readonly replace?: boolean } = {}): void {
  if (options.replace ?? true) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [registry, text] of registryHostsFiles(config)) {
    mkdirSync(join(dir, registry), { recursive: true });
    writeFileSync(join(dir, registry, 'hosts.toml'), text);
  }
}
