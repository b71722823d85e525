/**
 * `svc record`: a cluster's watches recorded as the NDJSON corpus svc/bench reads back
 * (`recordedEvents`): the state at sync, then each change in order; bad input refused.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedEvents } from '../../src/bench/index.js';
import { record } from '../../src/cli/record-command.js';
import { builtin } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

let cluster: TestCluster;
let svcconfig: string;
const dir = mkdtempSync(join(tmpdir(), 'svc-record-'));

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: ['rec'] });
  svcconfig = join(dir, 'svcconfig');
  writeFileSync(
    svcconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64') } }],
      users: [{ name: 'u', user: { token: cluster.token } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
});
afterAll(async () => {
  await cluster?.stop();
});

const io = () => {
  const err: string[] = [];
  return { err, io: { out: () => {}, err: (line: string) => err.push(line) } };
};

describe('svc record', () => {
  it('writes the state at sync, then each change with its time, for the resources asked', async () => {
    const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'rec' }, data: { v } });
    await cluster.client.create(builtin.configMaps, cm('before', '0'), { namespace: 'rec' });
    const out = join(dir, 'day.ndjson');
    const { io: quiet, err } = io();
    const running = record([`--svcconfig=${svcconfig}`, '--resource=configmaps', '--namespace=rec', '--duration=2s', `--out=${out}`], quiet);
    // Changes once the recording says it is live.
    while (!err.some((line) => line.includes('recording'))) await new Promise((resolve) => setTimeout(resolve, 20));
    const a = await cluster.client.create(builtin.configMaps, cm('a', '1'), { namespace: 'rec' });
    await cluster.client.update(builtin.configMaps, { ...a, data: { v: '2' } }, { namespace: 'rec' });
    await cluster.client.delete(builtin.configMaps, 'before', { namespace: 'rec' });
    expect(await running).toBe(0);

    const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ source: 'configmaps', type: 'SYNCED' });
    expect(lines[0].objects.map((o: { metadata: { name: string } }) => o.metadata.name)).toContain('before');
    expect(lines.slice(1).map((l: { type: string; object: { metadata: { name: string } } }) => [l.type, l.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['MODIFIED', 'a'],
      ['DELETED', 'before'],
    ]);
    const ats = lines.map((l: { at: number }) => l.at);
    expect([...ats].sort((x, y) => x - y)).toEqual(ats);
    // The corpus is svc/bench's input as it is.
    const input = recordedEvents(readFileSync(out, 'utf8'));
    expect(input.items.map((i) => i.value.type)).toEqual([...lines[0].objects.map(() => 'ADDED'), 'ADDED', 'MODIFIED', 'DELETED']);
  });

  it('refuses a resource the server does not serve, and a bad duration', async () => {
    const a = io();
    expect(await record([`--svcconfig=${svcconfig}`, '--resource=gizmos.example.com', '--duration=1s'], a.io)).toBe(1);
    expect(a.err.join('\n')).toContain('serves no watchable resource "gizmos.example.com"');
    const b = io();
    expect(await record([`--svcconfig=${svcconfig}`, '--duration=0s'], b.io)).not.toBe(0);
    expect(b.err.join('\n')).toContain('--duration');
  });
});
