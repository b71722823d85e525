// The ControllerRevision history DaemonSets and StatefulSets share: the hash (upstream's scheme over
// canonical JSON), and against a real API server a name collision, a return to an earlier template
// and truncation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerRevision, PodTemplateSpec, StatefulSet } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { buildRevision, ensureRevision, hashRevision, safeEncode, truncateHistory } from '../../controllers/revision-history/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';

describe('revision hash', () => {
  it('is the same for the same data in any key order, and changes with the collision count', () => {
    const a = { spec: { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    const b = { spec: { template: { spec: { containers: [{ image: 'i', name: 'c' }] }, metadata: { labels: { app: 'x' } } } } };
    expect(hashRevision(a)).toBe(hashRevision(b));
    expect(hashRevision(a, 1)).not.toBe(hashRevision(a));
    expect(hashRevision(a)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });

  it('safe-encodes as Kubernetes does: each character indexes the alphabet by its code', () => {
    // '0' is 48: 48 % 27 = 21 → '4'; '9' is 57: 57 % 27 = 3 → 'f'.
    expect(safeEncode('09')).toBe('4f');
  });
});

describe('revision history against a server', () => {
  let server: TestServer;
  let client: Client;
  let owner: StatefulSet;
  const ns = 'default';
  const type = { group: 'apps', version: 'v1', kind: 'StatefulSet' };
  const template = (image: string): PodTemplateSpec => ({ metadata: { labels: { app: 'h' } }, spec: { containers: [{ name: 'c', image }] } });
  const revisions = async () => (await client.list(builtin.controllerRevisions, { namespace: ns })).items;

  beforeAll(async () => {
    server = await startTestServer('memory', { listen: true });
    client = new Client({ server: server.url!, token: TOKEN });
    owner = await client.create(builtin.statefulSets, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'h', namespace: ns }, spec: { selector: { matchLabels: { app: 'h' } }, template: template('a') } } as StatefulSet, { namespace: ns });
  });
  afterAll(async () => {
    await client.destroy();
    await server.close();
  });

  it('raises the collision count when the name is taken by another template; reuses and renumbers an earlier template; truncates the rest', async () => {
    const revisionOwner = { object: owner, type, hashLabel: 'controller.kubernetes.io/hash' };
    // Someone holds the name the first template's revision would take, with other data.
    const squatter = buildRevision(revisionOwner, template('a'), 1, 0);
    await client.create(builtin.controllerRevisions, { ...squatter, metadata: { ...squatter.metadata, ownerReferences: [] }, data: { other: true } } as ControllerRevision, { namespace: ns });
    const first = await ensureRevision(client, revisionOwner, template('a'), [], 0);
    expect(first.collisionCount).toBe(1);
    expect(first.updateRevision.metadata.name).not.toBe(squatter.metadata.name);
    expect(first.updateRevision.revision).toBe(1);

    const second = await ensureRevision(client, revisionOwner, template('b'), first.revisions, first.collisionCount);
    expect(second.updateRevision.revision).toBe(2);
    // Back to the first template: its revision, renumbered 3, none created.
    const back = await ensureRevision(client, revisionOwner, template('a'), second.revisions, second.collisionCount);
    expect(back.updateRevision.metadata.name).toBe(first.updateRevision.metadata.name);
    expect(back.updateRevision.revision).toBe(3);
    expect(back.revisions.map((r) => r.revision)).toEqual([2, 3]);

    // Limit 0: everything but the live revision goes.
    await truncateHistory(client, back.revisions, new Set([back.updateRevision.metadata.name!]), 0);
    const left = (await revisions()).filter((r) => r.metadata.ownerReferences?.length).map((r) => r.metadata.name);
    expect(left).toEqual([back.updateRevision.metadata.name]);
  });
});
