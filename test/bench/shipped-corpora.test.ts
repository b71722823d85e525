/**
 * The corpora svc ships (bench/corpora) hold what their README says, and read through `readCorpus`
 * (gzipped, brotli-compressed or not) into `recordedEvents`: the node going away is tainted
 * unreachable and its pods evicted and replaced; the churns make and delete their thousand and
 * five thousand pods (the larger on hollow nodes, and its header says so); the workloads corpus
 * holds every workload kind, the CronJob's Job included.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readCorpus, recordedEvents, type WatchEvent } from '../../src/bench/index.js';

const corpus = (file: string) => readCorpus(fileURLToPath(new URL(`../../bench/corpora/${file}`, import.meta.url)));
const count = (events: readonly { value: WatchEvent }[], type: WatchEvent['type']) => events.filter((e) => e.value.type === type).length;

describe('the shipped corpora', () => {
  it('node-going-away: the stopped node is tainted unreachable NoExecute, two pods evicted and two made', () => {
    const text = corpus('node-going-away.ndjson.gz');
    const nodes = recordedEvents(text, { source: 'nodes' }).items;
    const taints = nodes.flatMap((e) => ((e.value.object as { spec?: { taints?: { key: string; effect: string }[] } }).spec?.taints ?? []).map((t) => `${e.value.object.metadata.name} ${t.key}:${t.effect}`));
    expect(new Set(taints)).toEqual(new Set(['sim-c node.kubernetes.io/unreachable:NoSchedule', 'sim-c node.kubernetes.io/unreachable:NoExecute']));
    const pods = recordedEvents(text, { source: 'pods' }).items;
    // 9 at the start (the SYNCED line, read as ADDED), 2 replacements.
    expect(count(pods, 'ADDED')).toBe(11);
    const evicted = new Set(pods.filter((e) => e.value.object.metadata.deletionTimestamp !== undefined).map((e) => e.value.object.metadata.name));
    expect(evicted.size).toBe(2);
  });

  it('pod-churn-1000: a thousand pods made and deleted', () => {
    const pods = recordedEvents(corpus('pod-churn-1000.ndjson.gz'), { source: 'pods' }).items;
    expect(count(pods, 'ADDED')).toBeGreaterThanOrEqual(1_000);
    expect(count(pods, 'DELETED')).toBe(count(pods, 'ADDED'));
  });

  it('pod-churn-5000: 5,000 pods made, run and deleted on hollow nodes, and its header says the containers were simulated', () => {
    // 105 MB of NDJSON: scanned line by line for what it shows, not parsed into objects.
    const lines = corpus('pod-churn-5000.ndjson.br').split('\n');
    const header = (JSON.parse(lines[0]!) as { header: Record<string, unknown> }).header;
    expect(header).toMatchObject({ corpus: 'pod-churn-5000', resources: ['pods', 'replicasets.apps', 'deployments.apps'] });
    expect(header['runtime']).toMatch(/^SIMULATED: svc-simulated/);
    const typeOf = (line: string) => /^\{"at":[\d.]+,"source":"pods","type":"(\w+)"/.exec(line)?.[1];
    // A pod's own uid is the first in its line (its metadata comes before its owner references).
    const uidOf = (line: string) => /"uid":"([^"]+)"/.exec(line)![1]!;
    const added = new Set<string>();
    const running = new Set<string>();
    const deleting = new Set<string>();
    const runtimes = new Set<string>();
    for (const line of lines) {
      const type = typeOf(line);
      if (type === undefined) continue;
      if (type === 'ADDED') added.add(uidOf(line));
      if (line.includes('"phase":"Running"')) running.add(uidOf(line));
      if (type === 'DELETED' || line.includes('"deletionTimestamp"')) deleting.add(uidOf(line));
      for (const [, scheme] of line.matchAll(/"containerID":"([^:"]+):\/\//g)) runtimes.add(scheme!);
    }
    expect(added.size).toBeGreaterThanOrEqual(5_000);
    expect(running.size).toBeGreaterThanOrEqual(5_000);
    // Every pod made was deleted, or was being deleted when the recording ended.
    expect([...added].filter((uid) => !deleting.has(uid))).toEqual([]);
    // Every container the nodes reported is the simulated runtime's.
    expect([...runtimes]).toEqual(['svc-simulated']);
  });

  it('workloads: every workload kind, and the Job the CronJob started', () => {
    const text = corpus('workloads.ndjson.gz');
    for (const source of ['statefulsets.apps', 'replicationcontrollers', 'daemonsets.apps', 'cronjobs.batch']) expect(count(recordedEvents(text, { source }).items, 'ADDED')).toBe(1);
    const jobs = recordedEvents(text, { source: 'jobs.batch' }).items.filter((e) => e.value.type === 'ADDED');
    expect(jobs.map((e) => e.value.object.metadata.ownerReferences?.[0]?.kind ?? 'none').sort()).toEqual(['CronJob', 'none']);
  });

  it('reads the plain NDJSON ones too', () => {
    expect(recordedEvents(corpus('deployment-rollout.ndjson'), { source: 'deployments.apps' }).items.length).toBeGreaterThan(0);
  });
});
