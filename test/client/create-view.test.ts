// `client.create(..., { decode })`: the answer as a frozen view that decodes a field when read
// (the ReplicaSet loop reads a created pod's name and nothing else), against a real API server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { LazyRecord } from '../../src/client/lazy/json-view.js';
import { ProtoRecord } from '../../src/client/lazy/proto-view.js';
import { cm, startClientTestServer, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let client: Client;
beforeAll(async () => {
  t = await startClientTestServer();
  client = t.client;
});
afterAll(() => t.close());

/** What is the same in two answers for objects of the same content under different names. */
const comparable = (object: unknown) => {
  const { metadata, ...rest } = JSON.parse(JSON.stringify(object)) as { metadata: Record<string, unknown> };
  const { name: _n, uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields, ...meta } = metadata;
  return { ...rest, metadata: meta, managers: (managedFields as { manager: string }[] | undefined)?.map((m) => m.manager) };
};

describe('a create answered as a view', () => {
  it.each([
    ['protobuf', ProtoRecord],
    ['lazy', LazyRecord],
  ] as const)('%s: a frozen view over the answer, reading as the eager answer does', async (decode, recordType) => {
    const eager = await client.create(builtin.configMaps, cm(`eager-${decode}`, { k: '1' }, { app: 'a' }));
    const view = await client.create(builtin.configMaps, cm(`view-${decode}`, { k: '1' }, { app: 'a' }), { decode });
    expect(recordOf(eager)).toBeUndefined();
    expect(recordOf(view)).toBeInstanceOf(recordType);
    expect(view.metadata.name).toBe(`view-${decode}`);
    expect(view.metadata.uid).toBeTypeOf('string');
    expect(view.data).toEqual({ k: '1' });
    expect(comparable(view)).toEqual(comparable(eager));
    expect(Object.isFrozen(view)).toBe(true);
    expect((await client.get(builtin.configMaps, `view-${decode}`)).metadata.uid).toBe(view.metadata.uid);
  });

  it('a refused create is the StatusError it was, whatever the decode asked', async () => {
    await client.create(builtin.configMaps, cm('taken'));
    for (const decode of ['protobuf', 'lazy', 'eager'] as const) {
      const refused = await client.create(builtin.configMaps, cm('taken'), { decode }).catch((error: unknown) => error);
      expect(isStatusError(refused, 'AlreadyExists')).toBe(true);
      expect(refused).toMatchObject({ code: 409 });
    }
  });
});
