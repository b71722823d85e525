// The bootstrap signer signs cluster-info's kubeconfig (svc-public) once per signing bootstrap
// token (svc-system) as a detached HS256 JWS keyed by the token; the token cleaner deletes
// expired tokens, and the signer then drops their signatures. The loops' clock is the test's.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Secret } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { bootstrapSigner, builtinLoops, tokenCleaner } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';

let clock = Date.parse('2026-06-01T00:00:00Z');
let cluster: TestCluster;
let client: Client;
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.0.0.1:6443\n  name: ""\n';

const token = (id: string, secret: string, extra: Record<string, string> = {}, name = `bootstrap-token-${id}`): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'svc-system' },
  type: 'bootstrap.kubernetes.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, 'usage-bootstrap-signing': 'true', ...extra }).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const clusterInfo = async () => (await client.get(builtin.configMaps, 'cluster-info', { namespace: 'svc-public' })).data ?? {};
const signatures = async () => Object.keys(await clusterInfo()).filter((k) => k.startsWith('jws-kubeconfig-')).sort();
/** Checked here independently: `header..signature`, HS256 over header.payload with `<id>.<secret>`. */
function verifies(jws: string, id: string, secret: string): boolean {
  const [header, empty, signature] = jws.split('.');
  if (empty !== '' || JSON.parse(Buffer.from(header!, 'base64url').toString()).kid !== id) return false;
  const expected = createHmac('sha256', `${id}.${secret}`).update(`${header}.${Buffer.from(KUBECONFIG).toString('base64url')}`).digest('base64url');
  return signature === expected;
}
const exists = async (name: string) => client.get(builtin.secrets, name, { namespace: 'svc-system' }).then(() => true, () => false);

beforeAll(async () => {
  const loops = new Map(builtinLoops());
  loops.set('bootstrap-signer-controller', () => (ctx) => bootstrapSigner(ctx, { now: () => clock }));
  loops.set('token-cleaner-controller', () => (ctx) => tokenCleaner(ctx, { now: () => clock }));
  cluster = await startTestCluster({ controllers: { controllers: ['bootstrap-signer-controller', 'token-cleaner-controller'], loops } });
  client = cluster.client;
  await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'svc-public' }, data: { kubeconfig: KUBECONFIG } }, { namespace: 'svc-public' });
});
afterAll(() => cluster.stop());

describe('bootstrap-signer and token-cleaner', () => {
  it('signs cluster-info once per valid signing token, and only for those', async () => {
    await client.create(builtin.secrets, token('abcdef', '0123456789abcdef'), { namespace: 'svc-system' });
    await client.create(builtin.secrets, token('ghijkl', 'ghijklmnopqrstuv', { expiration: '2026-06-02T00:00:00Z' }), { namespace: 'svc-system' });
    await client.create(builtin.secrets, token('nosign', 'aaaaaaaaaaaaaaaa', { 'usage-bootstrap-signing': 'false' }), { namespace: 'svc-system' });
    await client.create(builtin.secrets, token('wrongn', 'bbbbbbbbbbbbbbbb', {}, 'bootstrap-token-other'), { namespace: 'svc-system' });
    await client.create(builtin.secrets, token('short', 'cccccccccccccccc'), { namespace: 'svc-system' });
    await eventually(async () => (await signatures()).join() === 'jws-kubeconfig-abcdef,jws-kubeconfig-ghijkl', 'two signatures');
    const data = await clusterInfo();
    expect(verifies(data['jws-kubeconfig-abcdef']!, 'abcdef', '0123456789abcdef')).toBe(true);
    expect(verifies(data['jws-kubeconfig-ghijkl']!, 'ghijkl', 'ghijklmnopqrstuv')).toBe(true);
    expect(data['kubeconfig']).toBe(KUBECONFIG);
  });

  it('deletes an expired token, and its signature goes', async () => {
    clock = Date.parse('2026-06-03T00:00:00Z');
    // A change to the token is looked at at the test's time.
    await client.patch(builtin.secrets, 'bootstrap-token-ghijkl', { metadata: { labels: { touched: '1' } } }, { namespace: 'svc-system' });
    await eventually(async () => !(await exists('bootstrap-token-ghijkl')), 'the expired token deleted');
    await eventually(async () => (await signatures()).join() === 'jws-kubeconfig-abcdef', 'its signature removed');
    expect(await exists('bootstrap-token-abcdef')).toBe(true);
  });
});
