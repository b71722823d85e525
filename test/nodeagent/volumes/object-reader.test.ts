import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { cachingObjectReader, nodeObjectTtlMs, podObjectReader, type PodObjectReader } from '../../../src/nodeagent/index.js';
import { AUDIENCES, ISSUER, startVolumesApiServer, type VolumesApiServer } from './api-server.js';

let api: VolumesApiServer;
let objects: PodObjectReader;

beforeAll(async () => {
  api = await startVolumesApiServer();
  objects = podObjectReader(api.client);
  await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, data: { k: 'v' } });
  await api.client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec', namespace: 'default' }, data: { k: 'dg==' } });
  await api.client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } });
  await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'CA' } });
});
afterAll(async () => api?.close());

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

describe('podObjectReader', () => {
  it('reads ConfigMaps and Secrets, and answers undefined for a missing one', async () => {
    expect((await objects.configMap('default', 'cfg'))?.data).toEqual({ k: 'v' });
    expect((await objects.secret('default', 'sec'))?.data).toEqual({ k: 'dg==' });
    expect(await objects.configMap('default', 'absent')).toBeUndefined();
    expect(await objects.secret('default', 'absent')).toBeUndefined();
    expect(await objects.configMap('elsewhere', 'cfg')).toBeUndefined();
  });

  it("requests a token for the pod's service account, bound to the pod, with audience and lifetime", async () => {
    const pod = await api.client.create(builtin.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bound', namespace: 'default' },
      spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] },
    } satisfies Pod);
    const issued = await objects.serviceAccountToken(pod, { audience: 'vault', expirationSeconds: 1200 });
    const claims = claimsOf(issued.token) as { iss: string; sub: string; aud: string[]; exp: number; iat: number; 'kubernetes.io': { pod: { name: string; uid: string } } };
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'system:serviceaccount:default:robot', aud: ['vault'] });
    expect(claims.exp - claims.iat).toBe(1200);
    expect(claims['kubernetes.io'].pod).toEqual({ name: 'bound', uid: pod.metadata.uid });
    expect(Date.parse(issued.expirationTimestamp)).toBe(claims.exp * 1000);

    const defaults = claimsOf((await objects.serviceAccountToken(pod, { expirationSeconds: 3600 })).token);
    expect(defaults['aud']).toEqual(AUDIENCES);
  });

  it('fails with the API server’s error for a pod the server does not have', async () => {
    const ghost: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ghost', namespace: 'default', uid: 'nope' }, spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] } };
    await expect(objects.serviceAccountToken(ghost, { expirationSeconds: 3600 })).rejects.toMatchObject({ name: 'StatusError' });
  });
});

describe('cachingObjectReader (the kubelet\'s Cache strategy, TTL from the ttl controller\'s Node annotation)', () => {
  it('reuses a ConfigMap or Secret read within the TTL, reads again after it, and reads every time at TTL 0', async () => {
    await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cached', namespace: 'default' }, data: { k: 'one' } });
    let now = 1_000_000;
    let ttl = 30_000;
    const reads: string[] = [];
    const counting: PodObjectReader = { ...objects, configMap: (ns, name) => (reads.push(`${ns}/${name}`), objects.configMap(ns, name)) };
    const cached = cachingObjectReader(counting, () => ttl, () => now);
    expect((await cached.configMap('default', 'cached'))?.data).toEqual({ k: 'one' });
    const stored = await api.client.get(builtin.configMaps, 'cached', { namespace: 'default' });
    await api.client.update(builtin.configMaps, { ...stored, data: { k: 'two' } });
    now += 29_000;
    expect((await cached.configMap('default', 'cached'))?.data).toEqual({ k: 'one' });
    expect(reads).toEqual(['default/cached']);
    now += 1_000;
    expect((await cached.configMap('default', 'cached'))?.data).toEqual({ k: 'two' });
    expect(reads).toHaveLength(2);
    ttl = 0;
    await cached.configMap('default', 'cached');
    await cached.configMap('default', 'cached');
    expect(reads).toHaveLength(4);
    // Secrets are cached the same way; a missing object is kept too (it is an answer, not a failure).
    ttl = 30_000;
    expect(await cached.secret('default', 'absent-secret')).toBeUndefined();
    await api.client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'absent-secret', namespace: 'default' }, data: { k: 'dg==' } });
    expect(await cached.secret('default', 'absent-secret')).toBeUndefined();
    now += 30_000;
    expect((await cached.secret('default', 'absent-secret'))?.data).toEqual({ k: 'dg==' });
  });

  it("keeps a namespace's Services for the TTL too (service-link env)", async () => {
    let now = 0;
    const lists: string[] = [];
    const counting: PodObjectReader = { ...objects, services: (ns) => (lists.push(ns), objects.services!(ns)) };
    const cached = cachingObjectReader(counting, () => 15_000, () => now);
    const first = await cached.services!('default');
    expect(await cached.services!('default')).toBe(first);
    await cached.services!('other');
    expect(lists).toEqual(['default', 'other']);
    now += 15_000;
    await cached.services!('default');
    expect(lists).toEqual(['default', 'other', 'default']);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const flaky: PodObjectReader = { ...objects, configMap: (ns, name) => (fail ? Promise.reject(new Error('connection reset')) : objects.configMap(ns, name)) };
    const cached = cachingObjectReader(flaky, () => 60_000, () => 0);
    await expect(cached.configMap('default', 'cfg')).rejects.toThrow('connection reset');
    fail = false;
    expect((await cached.configMap('default', 'cfg'))?.data).toEqual({ k: 'v' });
  });

  it('takes the TTL from the Node annotation node.alpha.kubernetes.io/ttl (seconds); none or a bad one is 0', () => {
    const node = (ttl?: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', ...(ttl === undefined ? {} : { annotations: { 'node.alpha.kubernetes.io/ttl': ttl } }) } });
    expect(nodeObjectTtlMs(node('30'))).toBe(30_000);
    expect(nodeObjectTtlMs(node('0'))).toBe(0);
    expect(nodeObjectTtlMs(node())).toBe(0);
    expect(nodeObjectTtlMs(node('soon'))).toBe(0);
    expect(nodeObjectTtlMs(node('-5'))).toBe(0);
    expect(nodeObjectTtlMs(undefined)).toBe(0);
  });
});
