// The last versions written lately (src/apiserver/written-objects.ts): bounded by their stored
// bytes, least recently used out first, a newer version never replaced by an older one, and only
// the objects handed out from it are guesses; and which failures of a write from a guess are tried
// again from the store.
import { describe, expect, it } from 'vitest';
import { builtinTypes, conflict, invalid, optimisticLockMessage, serviceUnavailable } from '../../src/api/index.js';
import { failedOnGuess, StaleGuess, WrittenObjects } from '../../src/apiserver/written-objects.js';
import { StorageError } from '../../src/storage/index.js';
import type { ApiObject } from '../../src/apiserver/api-object.js';

const object = (name: string, resourceVersion: number): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: String(resourceVersion) } });
const type = builtinTypes.find((t) => t.kind === 'ConfigMap')!;
const podType = builtinTypes.find((t) => t.kind === 'Pod')!;
const coreEvents = builtinTypes.find((t) => t.kind === 'Event' && t.group === '')!;
const groupEvents = builtinTypes.find((t) => t.kind === 'Event' && t.group !== '')!;

describe('WrittenObjects', () => {
  it('keeps objects up to its byte bound, dropping the least recently used first', () => {
    const written = new WrittenObjects(300);
    written.set(type, 'a', object('a', 1), 100);
    written.set(type, 'b', object('b', 2), 100);
    written.set(type, 'c', object('c', 3), 100);
    expect(written.get(type, 'a')?.metadata.name).toBe('a'); // a is now the most recent
    written.set(type, 'd', object('d', 4), 100);
    expect(written.get(type, 'b')).toBeUndefined();
    expect(written.size).toBe(3);
    written.set(type, 'huge', object('huge', 5), 301);
    expect(written.get(type, 'huge')).toBeUndefined();
  });

  it('keeps the newer of two versions whatever order they come in', () => {
    const written = new WrittenObjects(1_000);
    written.set(type, 'k', object('k', 7), 10);
    written.set(type, 'k', object('k', 5), 10);
    expect(written.get(type, 'k')?.metadata.resourceVersion).toBe('7');
    written.set(type, 'k', object('k', 9), 10);
    expect(written.get(type, 'k')?.metadata.resourceVersion).toBe('9');
    written.forget(type, 'k');
    expect(written.get(type, 'k')).toBeUndefined();
  });

  it('calls only its own objects guesses, and keeps each served version apart', () => {
    const written = new WrittenObjects(1_000);
    const kept = object('x', 1);
    written.set(type, 'x', kept, 10);
    expect(written.isGuess(kept)).toBe(true);
    expect(written.isGuess(object('x', 1))).toBe(false);
    expect(written.get({ ...type, version: 'v2' }, 'x')).toBeUndefined();
  });

  it('keeps Events in a budget of their own: a flood of them leaves the pod versions where they were', () => {
    const written = new WrittenObjects(1_000, 200);
    written.set(podType, 'pod-a', object('pod-a', 1), 400);
    written.set(podType, 'pod-b', object('pod-b', 2), 400);
    // Three pods' starts' worth of Events, far more than the whole bound.
    for (let i = 0; i < 30; i++) written.set(i % 2 ? coreEvents : groupEvents, `event-${i}`, object(`event-${i}`, 10 + i), 100);
    expect(written.get(podType, 'pod-a')?.metadata.name).toBe('pod-a');
    expect(written.get(podType, 'pod-b')?.metadata.name).toBe('pod-b');
    // The Events kept are the newest that fit their 200 bytes; the others were let go.
    expect(written.get(coreEvents, 'event-29')?.metadata.name).toBe('event-29');
    expect(written.get(groupEvents, 'event-28')?.metadata.name).toBe('event-28');
    expect(written.get(coreEvents, 'event-27')).toBeUndefined();
    expect(written.size).toBe(4);
    // An Event written again and again stays while other Events come and go.
    const hot = object('combined', 100);
    written.set(coreEvents, 'combined', hot, 100);
    for (let i = 0; i < 10; i++) {
      written.set(coreEvents, `other-${i}`, object(`other-${i}`, 200 + i), 50);
      expect(written.get(coreEvents, 'combined')).toBe(hot);
    }
    expect(written.isGuess(hot)).toBe(true);
    // Nor does the objects' budget take Events: one larger than theirs is not kept at all.
    written.set(coreEvents, 'large', object('large', 300), 201);
    expect(written.get(coreEvents, 'large')).toBeUndefined();
  });

  it('a write from a guess is tried again from the store on what the guess explains, never on a store failure', () => {
    const gr = { group: '', resource: 'configmaps' };
    expect(failedOnGuess(new StaleGuess())).toBe(true);
    expect(failedOnGuess(conflict(gr, 'a', optimisticLockMessage))).toBe(true);
    expect(failedOnGuess(invalid('ConfigMap', 'a', [{ reason: 'FieldValueInvalid', field: 'data', message: 'no' }]))).toBe(true);
    // After the compare-and-swap was sent, a failure may be a write etcd carried out.
    expect(failedOnGuess(new StorageError('Unavailable', 'etcd request failed: Connection dropped', {}))).toBe(false);
    expect(failedOnGuess(serviceUnavailable('etcd request failed'))).toBe(false);
    expect(failedOnGuess(new Error('anything else'))).toBe(false);
  });
});
