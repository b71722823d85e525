// ObjectReader.getForUpdate (src/apiserver/object-reader.ts), on a real memory store: the version
// this server last wrote is answered at once, itself and not a promise (a node's Lease renewal
// starts from it without an await), and anything else is read from the store; and yieldIfLarge,
// which a small write's path does not await at all.
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import type { ApiObject } from '../../src/apiserver/api-object.js';
import { objectKey } from '../../src/apiserver/object-keys.js';
import { ObjectReader } from '../../src/apiserver/object-reader.js';
import { LARGE_BODY_BYTES, yieldIfLarge } from '../../src/apiserver/request/index.js';
import { MemoryStore } from '../../src/storage/index.js';

const leases = builtinRegistry().lookup('coordination.svc.io', 'v1', 'leases')!;
const lease = (name: string, renewTime: string): ApiObject => ({
  apiVersion: 'coordination.svc.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default' },
  spec: { holderIdentity: name, renewTime },
});
const bytesOf = (object: ApiObject) => new TextEncoder().encode(JSON.stringify(object));

describe('ObjectReader.getForUpdate', () => {
  it('answers the version this server last wrote at once, and reads the store for any other object', async () => {
    const store = new MemoryStore();
    const reader = new ObjectReader(store);
    const stored = lease('node-1', '2026-11-28T05:00:00.000000Z');
    const { modRevision } = await store.create(objectKey(store, leases, 'default', 'node-1'), bytesOf(stored));
    await store.create(objectKey(store, leases, 'default', 'node-2'), bytesOf(lease('node-2', '2026-11-28T05:00:00.000000Z')));

    const kept = { ...lease('node-1', '2026-11-28T05:00:10.000000Z'), metadata: { name: 'node-1', namespace: 'default', resourceVersion: String(modRevision) } };
    reader.written.set(leases, objectKey(store, leases, 'default', 'node-1'), kept, 200);
    const fromWrites = reader.getForUpdate(leases, 'default', 'node-1');
    expect(fromWrites).toBe(kept);
    expect(reader.written.isGuess(fromWrites as ApiObject)).toBe(true);

    const fromStore = reader.getForUpdate(leases, 'default', 'node-2');
    expect(fromStore).toBeInstanceOf(Promise);
    const read = await fromStore;
    expect(read?.metadata.name).toBe('node-2');
    expect(reader.written.isGuess(read!)).toBe(false);
    await expect(reader.getForUpdate(leases, 'default', 'node-3')).resolves.toBeUndefined();
  });
});

describe('yieldIfLarge', () => {
  const request = (body: unknown) => ({ request: { body } }) as unknown as Parameters<typeof yieldIfLarge>[0];

  it('gives nothing to await for a small body, and a turn of the loop for a large one', async () => {
    expect(yieldIfLarge(request(new Uint8Array(100)))).toBeUndefined();
    expect(yieldIfLarge(request({ parsed: 'json' }))).toBeUndefined();
    const order: string[] = [];
    setImmediate(() => order.push('queued before'));
    const turn = yieldIfLarge(request(new Uint8Array(LARGE_BODY_BYTES)));
    expect(turn).toBeInstanceOf(Promise);
    await turn;
    order.push('after the yield');
    // The yield lets what was queued on the loop run first.
    expect(order).toEqual(['queued before', 'after the yield']);
  });
});
