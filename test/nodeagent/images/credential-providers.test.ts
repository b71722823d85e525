/**
 * Image credential provider plugins (the kubelet's exec protocol) against a real htpasswd registry
 * and a real containerd: a plugin script answers CredentialProviderRequests on stdin; a private
 * image is pulled only with the credentials it gives. Its runs are counted through the requests it
 * writes down, so caching (per image, registry or globally, for the answer's or the default
 * duration) is seen from outside.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialProviders, ImageManager, parseCredentialProviderConfig, parseImageName, readCredentialProviderConfig, registryKeyMatches } from '../../../src/nodeagent/index.js';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { markedBusybox, startRegistry, type RunningRegistry } from '../../support/registry.js';
import { EventLog, podWith, rejection } from './support.js';

let registry: RunningRegistry;
let containerd: RunningContainerd;
const work = mkdtempSync(join(tmpdir(), 'svc-credential-plugins-'));
const binDir = join(work, 'bin');
const requestsDir = join(work, 'requests');

/**
 * The plugin: writes each request to requestsDir, then answers from its arguments and environment
 * (`--user`, PLUGIN_PASSWORD, PLUGIN_CACHE_KEY_TYPE, PLUGIN_CACHE_DURATION, PLUGIN_EXIT).
 */
const PLUGIN = `#!/bin/sh
set -e
request=$(cat)
printf '%s' "$request" > "${requestsDir}/$(date +%s%N)-$$.json"
user=""
while [ $# -gt 0 ]; do case "$1" in --user) user="$2"; shift 2;; *) shift;; esac; done
if [ -n "$PLUGIN_EXIT" ]; then echo "no credentials today" >&2; exit "$PLUGIN_EXIT"; fi
host=$(printf '%s' "$request" | sed 's/.*"image":"\\([^/"]*\\)\\/.*/\\1/')
duration=""
if [ -n "$PLUGIN_CACHE_DURATION" ]; then duration=",\\"cacheDuration\\":\\"$PLUGIN_CACHE_DURATION\\""; fi
printf '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"%s"%s,"auth":{"%s":{"username":"%s","password":"%s"}}}' "\${PLUGIN_CACHE_KEY_TYPE:-Image}" "$duration" "$host" "$user" "$PLUGIN_PASSWORD"
`;

function writePlugin(name: string): void {
  writeFileSync(join(binDir, name), PLUGIN);
  chmodSync(join(binDir, name), 0o755);
}

interface ProviderOptions {
  readonly name?: string;
  readonly matchImages?: readonly string[];
  readonly defaultCacheDuration?: string;
  readonly env?: Record<string, string>;
  readonly password?: string;
}

function config(o: ProviderOptions = {}): string {
  const env = { PLUGIN_PASSWORD: o.password ?? 'plugin-pw', ...o.env };
  return JSON.stringify({
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: [
      {
        name: o.name ?? 'svc-test-plugin',
        matchImages: o.matchImages ?? ['127.0.0.1:*'.replace('*', registry.host.split(':')[1]!)],
        defaultCacheDuration: o.defaultCacheDuration ?? '0s',
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        args: ['--user', 'plugin'],
        env: Object.entries(env).map(([name, value]) => ({ name, value })),
      },
    ],
  });
}

const requests = () =>
  readdirSync(requestsDir)
    .sort()
    .map((file) => JSON.parse(readFileSync(join(requestsDir, file), 'utf8')) as Record<string, string>);

let clock = 0;
const providers = (o: ProviderOptions = {}, errors: string[] = []) =>
  new CredentialProviders({ providers: parseCredentialProviderConfig(config(o)), binDir, now: () => clock, onError: (name, image, error) => errors.push(`${name} ${image}: ${error.message}`) });
const manager = (credentialProviders?: CredentialProviders) => new ImageManager({ cri: containerd.cri, serializeImagePulls: true, registryQps: 0, registryBurst: 0, events: new EventLog(), credentialProviders });

let uid = 0;
/** Pulls `image` (policy Always, so every call pulls) for a new pod. */
const pull = (m: ImageManager, image: string) => {
  const { pod, container } = podWith(`p${++uid}`, { image, imagePullPolicy: 'Always' }, `uid-${uid}`);
  return m.ensureImage(pod, container, []);
};

beforeAll(async () => {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(binDir);
  mkdirSync(requestsDir);
  writePlugin('svc-test-plugin');
  registry = await startRegistry({ users: { plugin: 'plugin-pw' } });
  await registry.push('private/app', '1.0', markedBusybox('plugin-app'));
  await registry.push('private/other', '1.0', markedBusybox('plugin-other'));
  containerd = await startContainerd();
}, 120_000);

afterAll(async () => {
  await containerd?.stop();
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

beforeEach(() => {
  for (const file of readdirSync(requestsDir)) rmSync(join(requestsDir, file));
});

describe('a private image', () => {
  it('is not pulled without the plugin', async () => {
    const error = await rejection(pull(manager(), `${registry.host}/private/app:1.0`));
    expect(error.reason).toBe('ErrImagePull');
  }, 60_000);

  it("is pulled with the plugin's credentials: the request on stdin, the config's args and env reach the plugin", async () => {
    const { imageRef } = await pull(manager(providers()), `${registry.host}/private/app:1.0`);
    expect((await containerd.cri.imageStatus({ image: { image: imageRef } })).image?.repoTags).toContain(`${registry.host}/private/app:1.0`);
    expect(requests()).toEqual([{ apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'CredentialProviderRequest', image: `${registry.host}/private/app` }]);
  }, 60_000);

  it('is refused when the plugin gives wrong credentials, and when it fails (reported, the pull goes on without it)', async () => {
    expect((await rejection(pull(manager(providers({ password: 'wrong' })), `${registry.host}/private/app:1.0`))).reason).toBe('ErrImagePull');
    const errors: string[] = [];
    expect((await rejection(pull(manager(providers({ env: { PLUGIN_EXIT: '3' } }, errors)), `${registry.host}/private/app:1.0`))).reason).toBe('ErrImagePull');
    expect(errors).toEqual([`svc-test-plugin ${registry.host}/private/app: the plugin exited with status 3: no credentials today`]);
  }, 60_000);

  it('of a registry matchImages does not name never reaches the plugin', async () => {
    const error = await rejection(pull(manager(providers({ matchImages: ['*.example.com', '127.0.0.1:1'] })), `${registry.host}/private/app:1.0`));
    expect(error.reason).toBe('ErrImagePull');
    expect(requests()).toEqual([]);
  }, 60_000);
});

describe('the cache', () => {
  it('keeps an Image answer for its image only, for the default duration when the answer names none', async () => {
    clock = 0;
    const m = manager(providers({ defaultCacheDuration: '1m' }));
    await pull(m, `${registry.host}/private/app:1.0`);
    await pull(m, `${registry.host}/private/app:1.0`);
    expect(requests()).toHaveLength(1);
    await pull(m, `${registry.host}/private/other:1.0`);
    expect(requests()).toHaveLength(2);
    clock = 61_000;
    await pull(m, `${registry.host}/private/app:1.0`);
    expect(requests()).toHaveLength(3);
  }, 60_000);

  it("keeps a Registry answer for every image of the registry, for the answer's cacheDuration", async () => {
    clock = 0;
    const m = manager(providers({ defaultCacheDuration: '0s', env: { PLUGIN_CACHE_KEY_TYPE: 'Registry', PLUGIN_CACHE_DURATION: '10s' } }));
    await pull(m, `${registry.host}/private/app:1.0`);
    await pull(m, `${registry.host}/private/other:1.0`);
    expect(requests()).toHaveLength(1);
    clock = 10_001;
    await pull(m, `${registry.host}/private/other:1.0`);
    expect(requests()).toHaveLength(2);
  }, 60_000);

  it('keeps nothing for a duration of 0, and shares one run between concurrent pulls', async () => {
    clock = 0;
    const p = providers({ env: { PLUGIN_CACHE_KEY_TYPE: 'Global' } });
    await pull(manager(p), `${registry.host}/private/app:1.0`);
    await pull(manager(p), `${registry.host}/private/app:1.0`);
    expect(requests()).toHaveLength(2);
    const image = parseImageName(`${registry.host}/private/app:1.0`);
    await Promise.all([p.lookup(image), p.lookup(image), p.lookup(image)]);
    expect(requests()).toHaveLength(3);
  }, 60_000);
});

describe('matchImages', () => {
  const matches = (pattern: string, image: string) => registryKeyMatches(pattern, parseImageName(image));
  it('globs each host label, needs the same port and a path prefix', () => {
    expect(matches('*.registry.io', 'a.registry.io/x/y')).toBe(true);
    expect(matches('*.registry.io', 'registry.io/x/y')).toBe(false);
    expect(matches('*.registry.io', 'a.b.registry.io/x')).toBe(false);
    expect(matches('*.*.registry.io', 'a.b.registry.io/x')).toBe(true);
    expect(matches('registry.io:5000', 'registry.io:5000/x')).toBe(true);
    expect(matches('registry.io', 'registry.io:5000/x')).toBe(false);
    expect(matches('registry.io:5000', 'registry.io/x')).toBe(false);
    expect(matches('registry.io/team', 'registry.io/team/app')).toBe(true);
    expect(matches('registry.io/team', 'registry.io/other/app')).toBe(false);
    expect(matches('docker.io', 'busybox')).toBe(true);
    expect(matches('registry-?.io', 'registry-1.io/x')).toBe(true);
    expect(matches('registry-?.io', 'registry-12.io/x')).toBe(false);
    expect(matches('reg*.io', 'registry.io/x')).toBe(true);
  });
});

describe('the config', () => {
  const invalid = (text: string, message: RegExp) => expect(() => parseCredentialProviderConfig(text, 'c.yaml')).toThrow(message);
  const provider = (fields: Record<string, unknown>) =>
    JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1', kind: 'CredentialProviderConfig', providers: [{ name: 'p', matchImages: ['r.io'], defaultCacheDuration: '1m', apiVersion: 'credentialprovider.kubelet.k8s.io/v1', ...fields }] });

  it('refuses what the kubelet refuses, naming the file and the field', () => {
    invalid(provider({ name: '../p' }), /c\.yaml: providers\[0\]\.name: "\.\.\/p" must be a file name/);
    invalid(provider({ matchImages: [] }), /providers\[0\]\.matchImages: at least one image is required/);
    invalid(provider({ matchImages: ['https://r.io'] }), /"https:\/\/r\.io" must not have a scheme/);
    invalid(provider({ defaultCacheDuration: '-1m' }), /defaultCacheDuration: "-1m" is not a non-negative duration/);
    invalid(provider({ apiVersion: 'v1' }), /apiVersion: "v1" is not supported/);
    invalid(provider({ tokenAttributes: {} }), /providers\.0: Unrecognized key: "tokenAttributes"/);
    invalid(provider({}).replace('CredentialProviderConfig', 'Other'), /kind: "Other" must be CredentialProviderConfig/);
    invalid('providers: [', /not YAML or JSON/);
  });

  it('is a file or a directory of files joined in lexical order; each plugin must be an executable of the bin dir', () => {
    const dir = mkdtempSync(join(work, 'config-'));
    writeFileSync(join(dir, 'b.yaml'), provider({ name: 'svc-test-plugin' }));
    writeFileSync(join(dir, 'a.json'), provider({ name: 'second' }));
    writeFileSync(join(dir, 'ignored.txt'), 'not a config');
    expect(() => readCredentialProviderConfig(dir, binDir)).toThrow(/a\.json: provider "second": plugin .*second is missing/);
    writePlugin('second');
    expect(readCredentialProviderConfig(dir, binDir).map((p) => p.name)).toEqual(['second', 'svc-test-plugin']);
    chmodSync(join(binDir, 'second'), 0o644);
    expect(() => readCredentialProviderConfig(dir, binDir)).toThrow(/plugin .*second is not executable/);
    chmodSync(join(binDir, 'second'), 0o755);
    writeFileSync(join(dir, 'c.yml'), provider({ name: 'second' }));
    expect(() => readCredentialProviderConfig(dir, binDir)).toThrow(/c\.yml: provider "second" is configured twice/);
  });

  it('stops the agent before it starts when wrong, and gives no not-built notice when right', () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const file = join(work, 'one.yaml');
    writeFileSync(file, provider({ name: 'missing-plugin' }));
    const base = ['--fail-swap-on=false', '--fail-cgroupv1=false'];
    const host = { swapDevices: 0, cgroupVersion: 2 as const };
    expect(prepareNodeAgent([...base, '--image-credential-provider-config', file, '--image-credential-provider-bin-dir', binDir], io, host)).toBe(1);
    expect(lines.join('\n')).toMatch(/provider "missing-plugin": plugin .* is missing/);
    expect(prepareNodeAgent([...base, '--image-credential-provider-config', file], io, host)).toBe(1);
    expect(lines.join('\n')).toContain('--image-credential-provider-config: needs --image-credential-provider-bin-dir');
    writeFileSync(file, provider({ name: 'svc-test-plugin' }));
    lines.length = 0;
    const startup = prepareNodeAgent([...base, '--image-credential-provider-config', file, '--image-credential-provider-bin-dir', binDir], io, host);
    expect(typeof startup === 'object' && startup.credentialProviders?.map((p) => p.name)).toEqual(['svc-test-plugin']);
    expect(lines.filter((line) => line.includes('not built'))).toEqual([]);
  });
});
