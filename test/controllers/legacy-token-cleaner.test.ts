// The legacy token cleaner: a token Secret its account lists, mounted by no pod, unused for a
// clean-up period (by the API server's last-used label, else its creation) is labelled
// invalid-since; invalid for another period, it is deleted. Secrets made by hand and not listed,
// and secrets a pod mounts, are left alone. The loop's clock is the test's (a year in a line).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Secret } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { builtinLoops, legacyTokenCleaner } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';

const DAY = 24 * 3600_000;
const PERIOD = 365 * DAY;
let clock = Date.now();
let cluster: TestCluster;
let client: Client;

const tokenSecret = (name: string, labels: Record<string, string> = {}): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default', labels, annotations: { 'kubernetes.io/service-account.name': 'old-robot' } },
  type: 'kubernetes.io/service-account-token',
});
const read = async (name: string) => {
  try {
    return await client.get(builtin.secrets, name, { namespace: 'default' });
  } catch {
    return undefined;
  }
};
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** A change the loop sees (an annotation), so it looks at the secret again at the test's time. */
const touch = (name: string, n: number) => client.patch(builtin.secrets, name, { metadata: { annotations: { touched: String(n) } } }, { namespace: 'default' });

beforeAll(async () => {
  const loops = new Map(builtinLoops());
  loops.set('legacy-serviceaccount-token-cleaner-controller', () => (ctx) => legacyTokenCleaner(ctx, { cleanUpPeriodMs: PERIOD, now: () => clock }));
  cluster = await startTestCluster({ controllers: { controllers: ['legacy-serviceaccount-token-cleaner-controller'], loops } });
  client = cluster.client;
  for (const name of ['listed', 'hand-made', 'mounted', 'recent']) await client.create(builtin.secrets, tokenSecret(name), { namespace: 'default' });
  await client.create(builtin.serviceAccounts, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'old-robot', namespace: 'default' },
    secrets: [{ name: 'listed' }, { name: 'mounted' }, { name: 'recent' }],
  }, { namespace: 'default' });
  await client.create(builtin.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'uses-it', namespace: 'default' },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 't', secret: { secretName: 'mounted' } }] },
  }, { namespace: 'default' });
});
afterAll(() => cluster.stop());

describe('legacy-serviceaccount-token-cleaner', () => {
  it('marks a listed, unmounted token unused for a period invalid, then deletes it a period later; leaves the others', async () => {
    // A year and a day on: every token was created a year ago; `recent` was used yesterday.
    clock += PERIOD + DAY;
    await client.patch(builtin.secrets, 'recent', { metadata: { labels: { 'kubernetes.io/legacy-token-last-used': day(clock - DAY) } } }, { namespace: 'default' });
    for (const name of ['listed', 'hand-made', 'mounted']) await touch(name, 1);
    await eventually(async () => (await read('listed'))?.metadata.labels?.['kubernetes.io/legacy-token-invalid-since'] === day(clock), 'listed marked invalid');
    // A later change to each other secret is judged after the first: once that one is, the others were too.
    for (const name of ['hand-made', 'mounted', 'recent']) await touch(name, 2);
    await touch('listed', 2);
    await eventually(async () => (await read('listed'))?.metadata.annotations?.['touched'] === '2', 'the second touch');
    for (const name of ['hand-made', 'mounted', 'recent']) expect((await read(name))?.metadata.labels?.['kubernetes.io/legacy-token-invalid-since'], name).toBeUndefined();

    // A whole period after the mark: deleted.
    clock += PERIOD + DAY;
    await touch('listed', 4);
    await eventually(async () => (await read('listed')) === undefined, 'listed deleted');
    for (const name of ['hand-made', 'mounted', 'recent']) expect(await read(name), name).toBeDefined();
  });
});
