/**
 * Pulls from real registries (Debian's docker-registry on loopback) through a real containerd
 * configured by a registries.yaml: a Docker Hub mirror over plain HTTP (so `busybox`, pull policy
 * Always, works without internet), credentials from imagePullSecrets reaching an htpasswd
 * registry through CRI PullImage's auth, and credentials from the configuration's `configs`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServingCertificateFiles } from '../../../src/pki/index.js';
import type { Secret } from '../../../src/api/index.js';
import { ImageManager, type RegistryConfig } from '../../../src/nodeagent/index.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { markedBusybox, startRegistry, type RunningRegistry } from '../../support/registry.js';
import { EventLog, podWith, rejection } from './support.js';

let hub: RunningRegistry; // stands in for Docker Hub: open, reached as a mirror
let locked: RunningRegistry; // htpasswd; credentials only from pull secrets
let configured: RunningRegistry; // htpasswd; credentials from registries.yaml's configs
let secure: RunningRegistry; // HTTPS with a certificate of the test's own CA, trusted through configs.tls.ca_file
const pki = mkdtempSync(join(tmpdir(), 'svc-registry-pki-'));
let containerd: RunningContainerd;
let registries: RegistryConfig;

beforeAll(async () => {
  const serving = await ensureServingCertificateFiles(pki, 'registry', 'registry', { dns: ['localhost'], ips: ['127.0.0.1'] });
  const tls = { ...serving, caPem: readFileSync(join(pki, 'ca.crt'), 'utf8') };
  [hub, locked, configured, secure] = await Promise.all([
    startRegistry(),
    startRegistry({ users: { puller: 'pull-secret-pw' } }),
    startRegistry({ users: { node: 'node-pw' } }),
    startRegistry({ tls }),
  ]);
  await secure.push('secure/app', '3.0', markedBusybox('secure-app'));
  await hub.push('library/busybox', 'latest', markedBusybox('from-the-mirror'));
  await hub.push('mirrorproject/tools', '1.0', markedBusybox('rewritten-tools'));
  await locked.push('private/app', '1.0', markedBusybox('private-app'));
  await configured.push('internal/app', '2.0', markedBusybox('internal-app'));
  registries = {
    mirrors: { 'docker.io': { endpoint: [`http://${hub.host}`], rewrite: { '^acme/(.*)$': 'mirrorproject/$1' } } },
    configs: {
      [configured.host]: { auth: { username: 'node', password: 'node-pw' } },
      // A loopback registry with a TLS configuration is reached over HTTPS.
      [secure.host]: { tls: { ca_file: join(pki, 'ca.crt') } },
    },
  };
  containerd = await startContainerd({ registries });
}, 120_000);

afterAll(async () => {
  await containerd?.stop();
  await Promise.all([hub, locked, configured, secure].map((r) => r?.stop()));
  rmSync(pki, { recursive: true, force: true });
}, 60_000);

const dockerConfigSecret = (registry: string, username: string, password: string): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'pull', namespace: 'default' },
  type: 'kubernetes.io/dockerconfigjson',
  data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [registry]: { username, password, auth: Buffer.from(`${username}:${password}`).toString('base64') } } })).toString('base64') },
});

const manager = (events = new EventLog()) => new ImageManager({ cri: containerd.cri, serializeImagePulls: true, registryQps: 0, registryBurst: 0, events, registries });

describe('pulls through a registries.yaml', () => {
  it('pulls `busybox` (no tag: policy Always) from the Docker Hub mirror over plain HTTP', async () => {
    const { pod, container } = podWith('mirror', { image: 'busybox' });
    const events = new EventLog();
    const { imageRef } = await manager(events).ensureImage(pod, container, []);
    expect(events.reasons()).toEqual(['Pulling', 'Pulled']);
    const status = await containerd.cri.imageStatus({ image: { image: imageRef } });
    expect(status.image?.repoTags).toContain('docker.io/library/busybox:latest');
    // Resolved at the mirror for docker.io (containerd names the upstream in `ns`), then its blobs fetched there.
    expect(hub.requests()).toContain('HEAD /v2/library/busybox/manifests/latest?ns=docker.io 200');
    expect(hub.requests().filter((r) => r.startsWith('GET /v2/library/busybox/blobs/sha256:') && r.endsWith(' 200')).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('passes imagePullSecrets credentials to the registry (CRI PullImage auth); without them, or wrong, the pull fails', async () => {
    const image = `${locked.host}/private/app:1.0`;
    const none = await rejection(manager().ensureImage(podWith('no-secret', { image }, 'uid-a').pod, podWith('no-secret', { image }, 'uid-a').container, []));
    expect(none.reason).toBe('ErrImagePull');
    const wrong = podWith('wrong-secret', { image }, 'uid-b');
    expect((await rejection(manager().ensureImage(wrong.pod, wrong.container, [dockerConfigSecret(locked.host, 'puller', 'nope')]))).reason).toBe('ErrImagePull');
    const right = podWith('right-secret', { image }, 'uid-c');
    const { imageRef } = await manager().ensureImage(right.pod, right.container, [dockerConfigSecret(locked.host, 'puller', 'pull-secret-pw')]);
    expect((await containerd.cri.imageStatus({ image: { image: imageRef } })).image?.repoTags).toContain(image);
    const manifestGets = locked.requests().filter((r) => r.startsWith('GET /v2/private/app/manifests/1.0') || r.startsWith('HEAD /v2/private/app/manifests/1.0'));
    expect(manifestGets.some((r) => r.endsWith(' 401'))).toBe(true);
    expect(manifestGets.some((r) => r.endsWith(' 200'))).toBe(true);
  }, 60_000);

  it('uses the credentials of registries.yaml\'s configs when the pod has no pull secret', async () => {
    const image = `${configured.host}/internal/app:2.0`;
    const { pod, container } = podWith('configured', { image });
    const { imageRef } = await manager().ensureImage(pod, container, []);
    expect((await containerd.cri.imageStatus({ image: { image: imageRef } })).image?.repoTags).toContain(image);
  }, 60_000);

  it('applies a mirror\'s rewrite: acme/tools is pulled as mirrorproject/tools from the mirror, and found under that name next time', async () => {
    const { pod, container } = podWith('rewritten', { image: 'acme/tools:1.0' });
    const events = new EventLog();
    const { imageRef } = await manager(events).ensureImage(pod, container, []);
    expect(hub.requests()).toContain('HEAD /v2/mirrorproject/tools/manifests/1.0?ns=docker.io 200');
    expect((await containerd.cri.imageStatus({ image: { image: imageRef } })).image?.repoTags).toContain('docker.io/mirrorproject/tools:1.0');
    // IfNotPresent (a tag other than latest): present under its rewritten name, so not pulled again.
    const again = new EventLog();
    expect((await manager(again).ensureImage(podWith('rewritten-2', { image: 'acme/tools:1.0' }).pod, container, [])).imageRef).toBe(imageRef);
    expect(again.reasons()).toEqual(['Pulled']);
    expect(again.events[0]!.message).toContain('already present');
  }, 60_000);

  it('verifies an HTTPS registry with configs.tls.ca_file; without the CA in its hosts.toml (re-read at each pull, no restart) the pull fails', async () => {
    const image = `${secure.host}/secure/app:3.0`;
    const hostsFile = join(containerd.dir, 'certs.d', secure.host, 'hosts.toml');
    const written = readFileSync(hostsFile, 'utf8');
    const ca = JSON.stringify(join(pki, 'ca.crt'));
    expect(written).toBe(`server = "https://${secure.host}"\nca = ${ca}\n\n[host."https://${secure.host}"]\n  capabilities = ["pull", "resolve"]\n  ca = ${ca}\n`);
    const { imageRef } = await manager().ensureImage(podWith('tls', { image }).pod, podWith('tls', { image }).container, []);
    expect((await containerd.cri.imageStatus({ image: { image: imageRef } })).image?.repoTags).toContain(image);
    writeFileSync(hostsFile, `[host."https://${secure.host}"]\n  capabilities = ["pull", "resolve"]\n`);
    try {
      const untrusted = podWith('tls-untrusted', { image, imagePullPolicy: 'Always' }, 'uid-untrusted');
      const error = await rejection(manager().ensureImage(untrusted.pod, untrusted.container, []));
      expect(error.reason).toBe('ErrImagePull');
      expect(error.message).toMatch(/x509|certificate/);
    } finally {
      writeFileSync(hostsFile, written);
    }
  }, 60_000);
});
