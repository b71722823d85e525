import { mkdtempSync, rmSync, writeFileSync, unlinkSync, renameSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION, podSources, SourcesReadiness, type PodUpdate } from '../../../src/nodeagent/index.js';
import { podYaml, Recorder, until } from './support.js';

const NODE = 'node-a';
let dir: string;
let recorder: Recorder<PodUpdate>;

// A short period with fs.watch off (unless a test is about the watch): tests wait for outcomes with
// bounded polls, never for a time.
const start = (path: string, options: { watch?: boolean; periodMs?: number; readiness?: SourcesReadiness } = {}) => {
  // Bound to this test's recorder: a read of an earlier test's source finishing late must not
  // report into it.
  const own = new Recorder<PodUpdate>();
  recorder = own;
  own.start(
    podSources({
      nodeName: NODE,
      podManifestPath: path,
      fileCheckFrequencyMs: options.periodMs ?? 50,
      watchManifestPath: options.watch ?? false,
      readiness: options.readiness,
      onProblem: (problem) => own.onProblem(problem),
    }),
  );
  return own;
};

const names = (updates: readonly PodUpdate[], type?: PodUpdate['type']) => updates.filter((u) => type === undefined || u.type === type).map((u) => u.pod.metadata.name);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-manifests-'));
});
afterEach(() => {
  recorder?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the file source', () => {
  it('gives each manifest the static-pod treatment: suffixed name, default namespace, node, UID and annotations', async () => {
    writeFileSync(join(dir, 'web.yaml'), podYaml('web'));
    const readiness = new SourcesReadiness(['file']);
    start(dir, { readiness });
    await until(() => recorder.values.length === 1, 'the ADD');
    const [update] = recorder.values;
    expect(update!.type).toBe('ADD');
    expect(update!.source).toBe('file');
    const pod = update!.pod;
    expect(pod.metadata.name).toBe('web-node-a');
    expect(pod.metadata.namespace).toBe('default');
    expect(pod.spec.nodeName).toBe(NODE);
    expect(pod.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION]).toBe('file');
    expect(pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION]).toBe(pod.metadata.uid);
    expect(readiness.allReady()).toBe(true);
  });

  it('ignores files whose names begin with a dot, and subdirectories', async () => {
    writeFileSync(join(dir, '.hidden.yaml'), podYaml('hidden'));
    writeFileSync(join(dir, '.web.yaml.swp'), podYaml('swap'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'inner.yaml'), podYaml('inner'));
    writeFileSync(join(dir, 'web.yaml'), podYaml('web'));
    start(dir);
    await until(() => recorder.values.length >= 1, 'the ADD');
    // Several more reads: still only web.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(names(recorder.values)).toEqual(['web-node-a']);
  });

  it('reads many YAML documents in one file, JSON files, and Lists', async () => {
    writeFileSync(join(dir, 'two.yaml'), `${podYaml('one')}---\n${podYaml('two', 'svc.local/busybox:latest', '  namespace: kube-system\n')}---\n`);
    writeFileSync(join(dir, 'three.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'three' }, spec: { containers: [{ name: 'c', image: 'x' }] } }));
    writeFileSync(
      join(dir, 'list.json'),
      JSON.stringify({ kind: 'PodList', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'four' }, spec: { containers: [{ name: 'c', image: 'x' }] } }] }),
    );
    start(dir);
    await until(() => recorder.values.length === 4, 'four ADDs');
    expect(names(recorder.values, 'ADD').sort()).toEqual(['four-node-a', 'one-node-a', 'three-node-a', 'two-node-a']);
    expect(recorder.values.find((u) => u.pod.metadata.name === 'two-node-a')!.pod.metadata.namespace).toBe('kube-system');
    expect(recorder.problems).toEqual([]);
  });

  it('skips and reports invalid documents, keeping the valid ones of the same file', async () => {
    const bad = [
      'kind: Service\napiVersion: v1\nmetadata: {name: svc}\n', // not a pod
      'apiVersion: v1\nkind: Pod\nmetadata: {name: nocontainers}\nspec: {containers: []}\n', // invalid pod
      'apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: c, image: x}]\n', // no name
      'apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\nspec:\n  containers: [{name: c, image: x}]\n', // name not a DNS subdomain
      'apiVersion: v2\nkind: Pod\nmetadata: {name: v2}\nspec:\n  containers: [{name: c, image: x}]\n', // wrong version
      'key: [unclosed\n', // YAML that does not parse
      '- a list\n', // not an object
    ];
    writeFileSync(join(dir, 'mixed.yaml'), [podYaml('good'), ...bad].join('---\n'));
    start(dir);
    await until(() => recorder.values.length === 1 && recorder.problems.length === bad.length, 'one ADD and every problem');
    expect(names(recorder.values)).toEqual(['good-node-a']);
    expect(recorder.problems.map((p) => p.document)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const problem of recorder.problems) {
      expect(problem.origin).toBe(join(dir, 'mixed.yaml'));
      expect(problem.error.code).toBeGreaterThanOrEqual(400);
      expect(problem.error.code).toBeLessThan(500);
    }
    // The problems are reported once per content, not on every read.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(recorder.problems).toHaveLength(bad.length);
    expect(recorder.error).toBeUndefined();
  });

  it('turns added, changed and removed files into ADD, REMOVE + ADD (a new UID) and REMOVE', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    start(dir);
    await until(() => recorder.values.length === 1, 'the first ADD');
    const firstUid = recorder.values[0]!.pod.metadata.uid;

    writeFileSync(join(dir, 'b.yaml'), podYaml('b'));
    await until(() => recorder.values.length === 2, 'the ADD of b');
    expect(recorder.values[1]).toMatchObject({ type: 'ADD', pod: { metadata: { name: 'b-node-a' } } });

    // Same content, reformatted, rewritten: same UID, no update.
    writeFileSync(join(dir, 'a.yaml'), `# a comment\n${podYaml('a')}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(recorder.values).toHaveLength(2);

    writeFileSync(join(dir, 'a.yaml'), podYaml('a', 'svc.local/busybox:other'));
    await until(() => recorder.values.length === 4, 'the REMOVE and ADD of the changed a');
    const [removed, added] = recorder.values.slice(2);
    expect(removed).toMatchObject({ type: 'REMOVE', pod: { metadata: { name: 'a-node-a', uid: firstUid } } });
    expect(added!.type).toBe('ADD');
    expect(added!.pod.metadata.name).toBe('a-node-a');
    expect(added!.pod.metadata.uid).not.toBe(firstUid);

    unlinkSync(join(dir, 'b.yaml'));
    await until(() => recorder.values.length === 5, 'the REMOVE of b');
    expect(recorder.values[4]).toMatchObject({ type: 'REMOVE', pod: { metadata: { name: 'b-node-a' } } });
  });

  it('sends UPDATE when a manifest with its own metadata.uid changes', async () => {
    const uid = '6f0b0a1e-1111-4222-8333-944455556666';
    writeFileSync(join(dir, 'a.yaml'), podYaml('a', 'img:1', `  uid: ${uid}\n`));
    start(dir);
    await until(() => recorder.values.length === 1, 'the ADD');
    const hash = recorder.values[0]!.pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION];
    writeFileSync(join(dir, 'a.yaml'), podYaml('a', 'img:2', `  uid: ${uid}\n`));
    await until(() => recorder.values.length === 2, 'the UPDATE');
    const update = recorder.values[1]!;
    expect(update.type).toBe('UPDATE');
    expect(update.pod.metadata.uid).toBe(uid);
    expect(update.pod.spec.containers[0]!.image).toBe('img:2');
    expect(update.pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION]).not.toBe(hash);
  });

  it('keeps UIDs stable across restarts of the agent (a new subscription)', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    start(dir);
    await until(() => recorder.values.length === 1, 'the ADD');
    const uid = recorder.values[0]!.pod.metadata.uid;
    recorder.stop();
    start(dir);
    await until(() => recorder.values.length === 1, 'the ADD after restart');
    expect(recorder.values[0]!.pod.metadata.uid).toBe(uid);
  });

  it('reads a single manifest file, and re-reads on fs.watch events', async () => {
    const file = join(dir, 'only.yaml');
    writeFileSync(file, podYaml('only'));
    start(file, { watch: true, periodMs: 3_600_000 });
    await until(() => recorder.values.length === 1, 'the ADD');
    // Written atomically (write + rename), as a careful tool does: the directory watch sees it.
    writeFileSync(join(dir, '.only.tmp'), podYaml('only', 'img:2'));
    renameSync(join(dir, '.only.tmp'), file);
    await until(() => recorder.values.length === 3, 'REMOVE and ADD from the watch alone');
    expect(recorder.values.slice(1).map((u) => u.type)).toEqual(['REMOVE', 'ADD']);
  });

  it('treats a missing path as an empty set (the source is seen), and skips a second pod of the same name', async () => {
    const readiness = new SourcesReadiness(['file']);
    start(join(dir, 'absent'), { readiness });
    await until(() => readiness.allReady(), 'the source seen');
    expect(recorder.values).toEqual([]);
    recorder.stop();

    writeFileSync(join(dir, 'a.yaml'), podYaml('web'));
    writeFileSync(join(dir, 'b.yaml'), podYaml('web', 'other'));
    start(dir);
    await until(() => recorder.values.length === 1 && recorder.problems.length === 1, 'one ADD, one clash');
    expect(recorder.values[0]!.pod.spec.containers[0]!.image).toBe('svc.local/busybox:latest'); // a.yaml comes first
    expect(recorder.problems[0]!.origin).toBe(join(dir, 'b.yaml'));
    expect(recorder.problems[0]!.error.reason).toBe('Invalid');
  });
});
