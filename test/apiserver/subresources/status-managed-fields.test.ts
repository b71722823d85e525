// A pod's status patches as a node agent sends them, and the managedFields they leave: the agent's
// first patch takes status.phase from the creator's entry (whose wire form is made from the stored
// one, not encoded anew) and records its own; a second patch keeps both; a write that starts from
// the store rather than this server's last version gives the same text. Each entry is compared,
// key for key, with the trie its field set sorts into.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromFieldsV1 } from '../../../src/apiserver/writes/field-set.js';
import { startTestServer, type BackendName, type CallResult, type TestServer } from '../harness.js';

const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };
const PODS = '/api/v1/namespaces/default/pods';

interface Entry {
  manager: string;
  operation: string;
  time: string;
  subresource?: string;
  fieldsV1: Record<string, unknown>;
}

function ok(res: CallResult, code = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  return res.body;
}

const entryOf = (object: { metadata: { managedFields: Entry[] } }, manager: string): Entry => {
  const found = object.metadata.managedFields.filter((e) => e.manager === manager);
  expect(found).toHaveLength(1);
  return found[0]!;
};

/** The FieldsV1 text a set sorts into: every path from the root in sorted order, a member followed by its child marked. */
function trieText(set: ReadonlySet<string>): string {
  const root: Record<string, any> = {};
  const sorted = [...set].sort();
  sorted.forEach((path, i) => {
    let node = root;
    for (const element of path.split('\n')) node = node[element] ??= {};
    if (sorted[i + 1]?.startsWith(`${path}\n`)) node['.'] = {};
  });
  return JSON.stringify(root);
}

const without = (fields: unknown, ...paths: string[]): Set<string> => {
  const set = fromFieldsV1(fields);
  for (const path of paths) expect(set.delete(path), path).toBe(true);
  return set;
};

describe.each<BackendName>(['memory', 'sqlite'])('a pod’s status patches and its managedFields (%s store)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(() => s.close());

  const create = async (name: string) =>
    ok(
      await s.call('POST', `${PODS}?fieldManager=creator`, {
        metadata: { name, labels: { app: 'a' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'f0e5a7c2-0000-4000-8000-000000000001', controller: true }] },
        spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] },
      }),
      201,
    );

  it('the first patch takes status.phase from the creator and records the agent’s fields; the second keeps both', async () => {
    const created = await create('mf');
    const creator = entryOf(created, 'creator');
    expect(fromFieldsV1(creator.fieldsV1).has('f:status\nf:phase')).toBe(true);
    expect(JSON.stringify(creator.fieldsV1)).toBe(trieText(fromFieldsV1(creator.fieldsV1)));

    const first = ok(
      await s.call('PATCH', `${PODS}/mf/status?fieldManager=agent`, { status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE),
    );
    const creatorAfter = entryOf(first, 'creator');
    expect(JSON.stringify(creatorAfter.fieldsV1)).toBe(trieText(without(creator.fieldsV1, 'f:status\nf:phase')));
    // Losing a field to another manager does not stamp the entry.
    expect(creatorAfter.time).toBe(creator.time);
    const agent = entryOf(first, 'agent');
    expect(agent).toMatchObject({ operation: 'Update', subresource: 'status' });
    const ready = 'f:status\nf:conditions\nk:{"type":"Ready"}';
    const agentFields = new Set(['f:status\nf:phase', 'f:status\nf:podIP', ready, `${ready}\nf:status`, `${ready}\nf:type`]);
    expect(fromFieldsV1(agent.fieldsV1)).toEqual(agentFields);
    expect(JSON.stringify(agent.fieldsV1)).toBe(trieText(agentFields));
    expect(ok(await s.call('GET', `${PODS}/mf`)).metadata.managedFields).toEqual(first.metadata.managedFields);

    const second = ok(await s.call('PATCH', `${PODS}/mf/status?fieldManager=agent`, { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, MERGE));
    expect(second.status.conditions).toEqual([{ type: 'Ready', status: 'False' }]);
    expect(JSON.stringify(entryOf(second, 'creator'))).toBe(JSON.stringify(creatorAfter));
    expect(JSON.stringify(entryOf(second, 'agent').fieldsV1)).toBe(JSON.stringify(agent.fieldsV1));
  });

  it('gives the same text when the write starts from the store (another server’s write in between)', async () => {
    await create('mf-store');
    // A label changed behind the server's back: its last version of the pod is stale, the patch reads the store.
    const key = `${s.store.prefix}core/pods/default/mf-store`;
    const kv = (await s.store.get(key))!;
    const stored = JSON.parse(new TextDecoder().decode(kv.value));
    stored.metadata.annotations = { behind: 'the back' };
    await s.store.update(key, new TextEncoder().encode(JSON.stringify(stored)), kv.modRevision);
    const creator = entryOf(stored, 'creator');

    const patched = ok(await s.call('PATCH', `${PODS}/mf-store/status?fieldManager=agent`, { status: { phase: 'Running' } }, MERGE));
    expect(patched.metadata.annotations).toEqual({ behind: 'the back' });
    expect(JSON.stringify(entryOf(patched, 'creator').fieldsV1)).toBe(trieText(without(creator.fieldsV1, 'f:status\nf:phase')));
    // Another manager takes a label through the object endpoint: the creator's entry loses it too.
    const labelled = ok(await s.call('PATCH', `${PODS}/mf-store?fieldManager=labeller`, { metadata: { labels: { app: 'b' } } }, MERGE));
    expect(JSON.stringify(entryOf(labelled, 'creator').fieldsV1)).toBe(trieText(without(creator.fieldsV1, 'f:status\nf:phase', 'f:metadata\nf:labels\nf:app')));
    expect(fromFieldsV1(entryOf(labelled, 'labeller').fieldsV1)).toEqual(new Set(['f:metadata\nf:labels\nf:app']));
  });
});
