import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/api/index.js';
import { builtin, EventRecorder } from '../../src/client/index.js';
import { startClientTestServer, type ClientTestServer } from './support.js';

// The one recorder every component writes Events through (src/client/event-recorder.ts), against
// a real svc-apiserver.
describe('EventRecorder', () => {
  let t: ClientTestServer;
  const recorders: EventRecorder[] = [];
  beforeEach(async () => {
    t = await startClientTestServer();
  });
  afterEach(async () => {
    for (const r of recorders.splice(0)) r.stop();
    await t.close();
  });
  const recorder = (options: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {}) => {
    const r = new EventRecorder({ client: t.client, component: 'test-component', host: 'host-1', ...options });
    recorders.push(r);
    return r;
  };
  const pod = { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web', uid: 'uid-web' };
  const events = async (namespace = 'default') => (await t.client.list(builtin.coreEvents, { namespace })).items as CoreEvent[];
  /** Polls the server until `done` holds for its Events (a bounded guard, never a timing assertion). */
  const settle = async (done: (list: CoreEvent[]) => boolean, namespace = 'default'): Promise<CoreEvent[]> => {
    for (let i = 0; ; i++) {
      const list = await events(namespace);
      if (done(list)) return list;
      if (i > 800) throw new Error(`Events did not settle: ${JSON.stringify(list.map((e) => [e.reason, e.count]))}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  /** Waits until `r` has heard back from `n` writes (the server may list an Event before its writer has its answer). */
  const writesDone = async (r: EventRecorder, n: number) => {
    for (let i = 0; r.stats().written < n; i++) {
      if (i > 800) throw new Error(`${n} writes did not end: ${JSON.stringify(r.stats())}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('writes a core/v1 Event with source, reporting component and instance, and timestamps', async () => {
    recorder().record(pod, 'Warning', 'BackOff', 'restarting failed container');
    const [event] = await settle((l) => l.length === 1);
    expect(event).toMatchObject({
      type: 'Warning',
      reason: 'BackOff',
      message: 'restarting failed container',
      count: 1,
      involvedObject: pod,
      source: { component: 'test-component', host: 'host-1' },
      reportingComponent: 'test-component',
      reportingInstance: 'host-1',
    });
    expect(event!.metadata.name).toMatch(/^web\.[0-9a-f]{16}$/);
    expect(event!.firstTimestamp).toBe(event!.lastTimestamp);
  });

  it('counts repeats of one Event in one object (count, lastTimestamp), and keeps different ones apart', async () => {
    const r = recorder();
    for (let i = 0; i < 5; i++) r.record(pod, 'Warning', 'FailedSync', 'same message');
    r.record(pod, 'Warning', 'FailedSync', 'another message');
    r.record({ ...pod, name: 'other', uid: 'uid-other' }, 'Warning', 'FailedSync', 'same message');
    const list = await settle((l) => l.reduce((n, e) => n + (e.count ?? 0), 0) === 7);
    expect(list.map((e) => [e.involvedObject.name, e.message, e.count]).sort()).toEqual([
      ['other', 'same message', 1],
      ['web', 'another message', 1],
      ['web', 'same message', 5],
    ]);
    // Once settled, a later repeat patches the same object again.
    r.record(pod, 'Warning', 'FailedSync', 'same message');
    const after = await settle((l) => l.some((e) => e.message === 'same message' && e.involvedObject.name === 'web' && e.count === 6));
    expect(after).toHaveLength(3);
  });

  it('combines similar Events: from the tenth different message of one object, type and reason, one Event counts them', async () => {
    const r = recorder();
    for (let i = 0; i < 12; i++) r.record(pod, 'Warning', 'FailedSync', `sync failed at resourceVersion ${i}`);
    r.record(pod, 'Warning', 'OtherReason', 'not similar: another reason');
    const list = await settle((l) => l.reduce((n, e) => n + (e.count ?? 0), 0) === 13);
    const combined = list.filter((e) => e.message!.startsWith('(combined from similar events): '));
    expect(combined.map((e) => [e.reason, e.count, e.message])).toEqual([['FailedSync', 3, '(combined from similar events): sync failed at resourceVersion 11']]);
    expect(list.filter((e) => e.reason === 'FailedSync' && e.count === 1)).toHaveLength(9);
    expect(list.filter((e) => e.reason === 'OtherReason')).toHaveLength(1);
  });

  it('creates the Event again when the counted one is gone', async () => {
    const r = recorder();
    r.record(pod, 'Normal', 'Pulled', 'pulled');
    const [first] = await settle((l) => l.length === 1);
    await t.client.delete(builtin.coreEvents, first!.metadata.name!, { namespace: 'default' });
    r.record(pod, 'Normal', 'Pulled', 'pulled');
    const [again] = await settle((l) => l.length === 1 && l[0]!.count === 2);
    expect(again!.metadata.name).toBe(first!.metadata.name);
  });

  it('reports as a component of its own through forComponent, sharing the writes', async () => {
    const r = recorder();
    r.forComponent('widgets').record(pod, 'Normal', 'Created', 'created 3 configmaps');
    const [event] = await settle((l) => l.length === 1);
    expect(event).toMatchObject({ reportingComponent: 'widgets', source: { component: 'widgets', host: 'host-1' } });
  });

  it('puts Events about cluster-scoped objects in default', async () => {
    recorder().record({ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-n1' }, 'Normal', 'Ready', 'node is ready');
    const [event] = await settle((l) => l.length === 1);
    expect(event!.involvedObject).toMatchObject({ kind: 'Node', name: 'n1' });
  });

  it('holds back a source\'s Events about one object after 25, then lets one through per 5 minutes, counted all along', async () => {
    let now = Date.parse('2026-11-28T06:00:00Z');
    const r = recorder({ now: () => now });
    for (let i = 0; i < 25; i++) r.record(pod, 'Normal', `Step${i}`, 'done');
    // The 26th and 27th about the pod from this source: held back, though counted.
    r.record(pod, 'Warning', 'BackOff', 'back-off restarting failed container');
    r.record(pod, 'Warning', 'BackOff', 'back-off restarting failed container');
    // Another object, and another source about the pod, have buckets of their own.
    r.record({ ...pod, name: 'other', uid: 'uid-other' }, 'Normal', 'Step0', 'done');
    r.forComponent('other-component').record(pod, 'Normal', 'Seen', 'seen');
    const list = await settle((l) => l.length === 27);
    await writesDone(r, 27);
    expect(list.filter((e) => e.reason === 'BackOff')).toEqual([]);
    expect(r.stats()).toEqual({ written: 27, dropped: 0, pending: 0, filtered: 2 });
    // Five minutes on, one more may go: the Event is created with every repeat counted.
    now += 5 * 60_000;
    r.record(pod, 'Warning', 'BackOff', 'back-off restarting failed container');
    const backOff = (await settle((l) => l.some((e) => e.reason === 'BackOff'))).filter((e) => e.reason === 'BackOff');
    expect(backOff.map((e) => [e.count, e.lastTimestamp])).toEqual([[3, '2026-11-28T06:05:00Z']]);
    // And the next one waits again.
    r.record(pod, 'Warning', 'BackOff', 'back-off restarting failed container');
    await writesDone(r, 28);
    expect(r.stats()).toMatchObject({ written: 28, filtered: 3, pending: 0 });
  });

  it('drops what overflows its buffer (counted), never blocking the caller', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const r = recorder({ bufferSize: 2, inFlight: 1, throttle: () => gate });
    for (let i = 0; i < 6; i++) r.record(pod, 'Normal', `R${i}`, 'm');
    // One write waits on the throttle, two wait in the buffer, three were dropped.
    expect(r.stats()).toEqual({ written: 0, dropped: 3, pending: 2, filtered: 0 });
    release();
    const list = await settle((l) => l.length === 3);
    expect(list.map((e) => e.reason).sort()).toEqual(['R0', 'R1', 'R2']);
    expect(r.stats()).toMatchObject({ written: 3, dropped: 3, pending: 0 });
  });

  it('folds repeats that arrive while a write of that Event is waiting into it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const r = recorder({ inFlight: 1, throttle: () => gate });
    for (let i = 0; i < 10; i++) r.record(pod, 'Warning', 'Failed', 'again');
    release();
    const [event] = await settle((l) => l.length === 1 && l[0]!.count === 10);
    expect(event!.count).toBe(10);
    // The first write created it with the count so far, and at most one more write patched the rest in.
    expect(r.stats().written).toBeLessThanOrEqual(2);
  });
});
