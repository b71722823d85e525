// Record a controller's input streams (watch events as NDJSON), its writes and its outcomes on a
// live test cluster, then replay them: the same controller gives the same outcomes and writes,
// on virtual time and without touching the store; a changed controller is caught.
import type { SchedulerLike } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type KubeObject } from '../../src/api/index.js';
import { builtin, Informer, type Client } from '../../src/client/index.js';
import { controller } from '../../controllers/index.js';
import { requeueAfter } from '../../operators/index.js';
import { parseRecording, Recorder, Replayer, startTestCluster, type CachedSource, type RecordingLine, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';

const NS = 'rec';
type ConfigMap = KubeObject & { data?: Record<string, string> };

/**
 * The controller under test: a Secret per ConfigMap (owned by it, same name); a ConfigMap labelled
 * `wait=once` is looked at again 50 ms later before its Secret is made.
 */
function secretsPerConfigMap(configMaps: CachedSource<ConfigMap>, secrets: CachedSource<KubeObject>, client: Client, scheduler?: SchedulerLike, secretName = (n: string) => n, busy?: Busy) {
  const waited = new Set<string>();
  return controller({
    name: 'secrets-per-configmap',
    for: configMaps,
    owns: [{ events: secrets, group: '', kind: 'ConfigMap' }],
    ...(scheduler ? { scheduler } : {}),
    ...(busy ? { metrics: { depth: (waiting: number) => void (busy.waiting = waiting) } } : {}),
    reconcile: async (key) => {
      if (busy) busy.running++;
      try {
        return await reconcileOne(key);
      } finally {
        if (busy) busy.running--;
      }
    },
  });

  async function reconcileOne(key: string) {
    const cm = configMaps.store.get(key);
    if (!cm || secrets.store.get(key)) return;
    if (cm.metadata.labels?.['wait'] === 'once' && !waited.has(key)) {
      waited.add(key);
      return requeueAfter(50);
    }
    const name = secretName(cm.metadata.name!);
    try {
      await client.create(
        builtin.secrets,
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata.name!, uid: cm.metadata.uid!, controller: true }] },
          stringData: { from: cm.metadata.name! },
        } as never,
        { namespace: NS },
      );
    } catch (error) {
      if (!isStatusError(error, 'AlreadyExists')) throw error;
    }
    return undefined;
  }
}

/** What the recorded controller is doing: keys waiting, reconciles running (both 0: idle). */
interface Busy {
  waiting: number;
  running: number;
}

describe('record and replay', () => {
  let cluster: TestCluster;
  let ndjson: string;
  let lines: RecordingLine[];

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: [NS] });
    const recorder = new Recorder(cluster);
    const configMaps = new Informer<ConfigMap>(cluster.client, builtin.configMaps, { namespace: NS });
    const secrets = new Informer(cluster.client, builtin.secrets, { namespace: NS });
    const cm = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ...(labels ? { labels } : {}) }, data: { v: name } });
    await cluster.client.create(builtin.configMaps, cm('before'));
    const busy: Busy = { waiting: 0, running: 0 };
    const idle = () => busy.waiting === 0 && busy.running === 0;
    const run = secretsPerConfigMap(recorder.source('configmaps', configMaps), recorder.source('secrets', secrets), recorder.client, undefined, undefined, busy)
      .pipe(recorder.results())
      .subscribe();
    const secretExists = (name: string) => () => secrets.store.get(`${NS}/${name}`) !== undefined;
    await eventually(secretExists('before'), 'the Secret of a ConfigMap that was there first');
    await cluster.client.create(builtin.configMaps, cm('later', { wait: 'once' }));
    await eventually(secretExists('later'), 'the Secret of a later ConfigMap, after its requeue');
    await cluster.client.delete(builtin.secrets, 'before', { namespace: NS });
    // The recording ends with the controller idle: each event it was handed has its result, so a
    // replay of it has nothing left over.
    await eventually(() => recorder.lines().filter((l) => 'write' in l).length === 3 && secretExists('before')() && idle(), 'the deleted Secret made again, the controller idle');
    run.unsubscribe();
    configMaps.stop();
    secrets.stop();
    recorder.stop();
    ndjson = recorder.toNdjson();
    lines = parseRecording(ndjson);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it('writes one NDJSON line per watch event, write and result, with the watch event types', () => {
    const raw = ndjson.trimEnd().split('\n');
    expect(raw.length).toBe(lines.length);
    for (const line of raw) expect(() => JSON.parse(line)).not.toThrow();
    const events = lines.flatMap((l) => ('source' in l ? [`${l.source} ${l.type} ${l.object?.metadata.name ?? ''}`.trim()] : []));
    expect(events).toContain('configmaps SYNCED');
    expect(events).toContain('configmaps ADDED before');
    expect(events).toContain('secrets DELETED before');
    const synced = lines.find((l) => 'source' in l && l.source === 'configmaps' && l.type === 'SYNCED');
    expect(synced && 'objects' in synced ? synced.objects?.map((o) => o.metadata.name) : undefined).toEqual(['before']);
    const writes = lines.flatMap((l) => ('write' in l ? [`${l.write.method} ${l.write.path} ${l.write.code}`] : []));
    expect(writes).toEqual([
      `POST /api/v1/namespaces/${NS}/secrets 201`,
      `POST /api/v1/namespaces/${NS}/secrets 201`,
      `POST /api/v1/namespaces/${NS}/secrets 201`,
    ]);
    expect(lines.some((l) => 'result' in l && l.result.type === 'requeueAfter' && l.result.key === `${NS}/later` && l.result.after === 50)).toBe(true);
    // Lines are in time order.
    expect(lines.map((l) => l.at)).toEqual([...lines.map((l) => l.at)].sort((a, b) => a - b));
  });

  it('replays to the same outcomes and writes, on virtual time, without writing to the store', async () => {
    const before = await cluster.store.revision();
    const replay = new Replayer(cluster, ndjson);
    const report = await replay.run(secretsPerConfigMap(replay.source('configmaps'), replay.source('secrets'), replay.client, replay.time));
    expect(report.divergence).toBeUndefined();
    expect(report.results).toEqual(report.recorded.results);
    expect(report.writes).toEqual(report.recorded.writes);
    expect(report.writes).toHaveLength(3);
    expect(await cluster.store.revision()).toBe(before);
    expect(cluster.writes(replay.userAgent)).toBe(0);
  });

  it('replays the same recording twice alike', async () => {
    const first = new Replayer(cluster, lines);
    const a = await first.run(secretsPerConfigMap(first.source('configmaps'), first.source('secrets'), first.client, first.time));
    const second = new Replayer(cluster, lines);
    const b = await second.run(secretsPerConfigMap(second.source('configmaps'), second.source('secrets'), second.client, second.time));
    expect(b.results).toEqual(a.results);
    expect(b.writes).toEqual(a.writes);
  });

  it('names the first write a changed controller makes differently: its body, or its path', async () => {
    const renamed = new Replayer(cluster, ndjson, { guardMs: 2_000 });
    const report = await renamed.run(secretsPerConfigMap(renamed.source('configmaps'), renamed.source('secrets'), renamed.client, renamed.time, (n) => `${n}-renamed`));
    expect(report.divergence).toMatch(/^write #1 \(POST \/api\/v1\/namespaces\/rec\/secrets\): the request body differs: .*"name":"before".*"name":"before-renamed"/);

    const pathChanged = new Replayer(cluster, ndjson.replaceAll(`/namespaces/${NS}/secrets`, `/namespaces/${NS}/configmaps`), { guardMs: 2_000 });
    const changed = await pathChanged.run(secretsPerConfigMap(pathChanged.source('configmaps'), pathChanged.source('secrets'), pathChanged.client, pathChanged.time));
    expect(changed.divergence).toMatch(/^write #1: the recording has POST \/api\/v1\/namespaces\/rec\/configmaps → 201, the controller made POST \/api\/v1\/namespaces\/rec\/secrets/);
  });

  it('catches an outcome that differs, or one more than recorded', async () => {
    // The same controller, but its requeue is 60 ms: the result differs where the recording has 50.
    const recordedLines = lines.map((l) => ('result' in l && l.result.type === 'requeueAfter' ? { ...l, result: { ...l.result, after: 60 } } : l));
    const replay = new Replayer(cluster, recordedLines, { guardMs: 2_000 });
    const report = await replay.run(secretsPerConfigMap(replay.source('configmaps'), replay.source('secrets'), replay.client, replay.time));
    expect(report.divergence).toMatch(/the recording has requeueAfter rec\/later \(attempt 1, after 60 ms\), the controller gave requeueAfter rec\/later \(attempt 1, after 50 ms\)/);

    const truncated = lines.slice(0, lines.findLastIndex((l) => 'result' in l));
    const short = new Replayer(cluster, truncated, { guardMs: 2_000 });
    const extra = await short.run(secretsPerConfigMap(short.source('configmaps'), short.source('secrets'), short.client, short.time));
    expect(extra.divergence).toMatch(/is not in the recording/);
  });

  it('refuses a recording line that is not one, naming it', () => {
    expect(() => parseRecording('{"at":1,"source":"a","type":"SYNCED"}\nnot json\n')).toThrow(/line 2/);
    expect(() => parseRecording('{"at":"soon"}\n')).toThrow(/line 1/);
  });
});
