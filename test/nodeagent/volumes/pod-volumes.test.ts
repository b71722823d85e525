import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { lstat, readFile, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { forgetPodPayloads, podObjectReader, setUpPodVolumes, tearDownPodVolumes, type PodObjectReader } from '../../../src/nodeagent/index.js';
import { scratchDir } from '../../support/scratch.js';
import { AUDIENCES, startVolumesApiServer, type VolumesApiServer } from './api-server.js';

let api: VolumesApiServer;
let objects: PodObjectReader;
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  api = await startVolumesApiServer();
  objects = podObjectReader(api.client);
  await api.client.create(builtin.configMaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: 'default' },
    data: { 'app.conf': 'port=80\n', other: 'o' },
    binaryData: { 'logo.bin': b64('\x00\x01binary') },
  });
  await api.client.create(builtin.secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'sec', namespace: 'default' },
    data: { password: b64('s3cret'), user: b64('admin') },
  });
  // What the root-CA publisher puts in every namespace; the admitted pods' API-access volumes read it.
  await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'CA PEM' } });
  await api.client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } });
});
// Pods set up, torn down after the file even when a test failed half way (tmpfs mounts must go
// before the scratch directories are removed).
const setUps: [string, string][] = [];
afterAll(async () => {
  for (const [root, uid] of setUps) await tearDownPodVolumes(root, uid);
  await api?.close();
});

let uidCounter = 0;
function podWith(volumes: NonNullable<Pod['spec']['volumes']>, containers?: Container[]): Pod {
  uidCounter += 1;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${uidCounter}`, namespace: 'default', uid: `uid-${uidCounter}-${process.pid}`, labels: { app: 'web', tier: 'front' }, annotations: { a: '1' } },
    spec: {
      nodeName: 'node-a',
      serviceAccountName: 'robot',
      containers: containers ?? [{ name: 'main', image: 'busybox', resources: { limits: { cpu: '500m', memory: '32Mi' } } }],
      volumes,
    },
  };
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;
const text = (path: string) => readFile(path, 'utf8');
const vol = (root: string, pod: Pod, plugin: string, name: string) => join(root, 'pods', pod.metadata.uid!, 'volumes', `svc.io~${plugin}`, name);
const mountType = (dir: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[4] === dir)
    .map((fields) => ({ fstype: fields[fields.indexOf('-') + 1], options: fields[fields.indexOf('-') + 3] }));

async function setUp(pod: Pod, root: string, extra: { now?: () => number; writtenPayloads?: Map<string, string>; objects?: PodObjectReader; writeFiles?: boolean } = {}) {
  setUps.push([root, pod.metadata.uid!]);
  return setUpPodVolumes(pod, { rootDir: root, nodeName: 'node-a', objects, nodeAllocatable: { cpu: '4', memory: '8Gi' }, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<{ reason?: string; message: string }> {
  return promise.then(
    () => ({ message: 'no error' }),
    (error: { reason?: string; message: string }) => error,
  );
}

describe('emptyDir', () => {
  it('is a directory every user of the pod can write', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'scratch', emptyDir: {} }]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'empty-dir', 'scratch');
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect(await modeOf(dir)).toBe(0o777);
    expect(mountType(dir)).toEqual([]);
    await tearDownPodVolumes(root, pod.metadata.uid!);
    expect(existsSync(join(root, 'pods', pod.metadata.uid!))).toBe(false);
  });

  it('medium Memory is a tmpfs bounded by sizeLimit, mounted once, unmounted by teardown', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'ram', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } }]);
    await setUp(pod, root);
    await setUp(pod, root);
    const dir = vol(root, pod, 'empty-dir', 'ram');
    const mounts = mountType(dir);
    expect(mounts).toHaveLength(1);
    expect(mounts[0]!.fstype).toBe('tmpfs');
    expect(mounts[0]!.options).toContain('size=16384k');
    writeFileSync(join(dir, 'data'), 'in memory');
    await tearDownPodVolumes(root, pod.metadata.uid!);
    expect(mountType(dir)).toEqual([]);
    expect(existsSync(join(root, 'pods', pod.metadata.uid!))).toBe(false);
  });

  it.each([
    ['no sizeLimit: the pod memory limit', {}, [{ name: 'main', image: 'busybox', resources: { limits: { memory: '32Mi' } } }], 'size=32768k'],
    ['a sizeLimit above the pod limit: the pod limit', { sizeLimit: '1Gi' }, undefined, 'size=32768k'],
    ['limits summed over containers', {}, [{ name: 'a', image: 'busybox', resources: { limits: { memory: '32Mi' } } }, { name: 'b', image: 'busybox', resources: { limits: { memory: '16Mi' } } }], 'size=49152k'],
    ['a container without a limit: node allocatable', { sizeLimit: '16Gi' }, [{ name: 'a', image: 'busybox' }], 'size=8388608k'],
  ] as const)('memory volume size, %s', async (_, emptyDir, containers, size) => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'ram', emptyDir: { medium: 'Memory', ...emptyDir } }], containers ? containers.map((c) => ({ ...c })) : undefined);
    await setUp(pod, root);
    expect(mountType(vol(root, pod, 'empty-dir', 'ram'))[0]?.options).toContain(size);
    await tearDownPodVolumes(root, pod.metadata.uid!);
  });

  it('a root dir reached through a symlink still mounts once and unmounts', async () => {
    const real = scratchDir('vol-');
    const link = join(scratchDir('vol-link-'), 'root');
    symlinkSync(real, link);
    const pod = podWith([{ name: 'ram', emptyDir: { medium: 'Memory' } }]);
    await setUp(pod, link);
    await setUp(pod, link);
    const dir = vol(real, pod, 'empty-dir', 'ram');
    expect(mountType(dir).map((m) => m.fstype)).toEqual(['tmpfs']);
    await tearDownPodVolumes(link, pod.metadata.uid!);
    expect(mountType(dir)).toEqual([]);
    expect(existsSync(join(real, 'pods', pod.metadata.uid!))).toBe(false);
  });
});

describe('hostPath', () => {
  const host = scratchDir('host-');
  mkdirSync(join(host, 'dir'));
  writeFileSync(join(host, 'file'), 'f');
  const socketPath = join(host, 'sock');
  const server = createServer();
  beforeAll(() => new Promise<void>((resolve) => server.listen(socketPath, resolve)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ok: [string, string][] = [
    ['', 'missing-anything'],
    ['Directory', 'dir'],
    ['File', 'file'],
    ['Socket', 'sock'],
    ['CharDevice', '/dev/null'],
    ['DirectoryOrCreate', 'dir'],
    ['FileOrCreate', 'file'],
  ];
  it.each(ok)('type %j accepts %s', async (type, path) => {
    const full = path.startsWith('/') ? path : join(host, path);
    const pod = podWith([{ name: 'h', hostPath: { path: full, type } }], [{ name: 'main', image: 'busybox', volumeMounts: [{ name: 'h', mountPath: '/h' }] }]);
    const volumes = await setUp(pod, scratchDir('vol-'));
    expect(volumes.mounts(pod.spec.containers[0]!)[0]).toMatchObject({ hostPath: full, containerPath: '/h', readonly: false });
  });

  it('DirectoryOrCreate creates the directory and its parents with mode 0755', async () => {
    const path = join(host, 'new/deep/dir');
    await setUp(podWith([{ name: 'h', hostPath: { path, type: 'DirectoryOrCreate' } }]), scratchDir('vol-'));
    expect((await stat(path)).isDirectory()).toBe(true);
    expect(await modeOf(path)).toBe(0o755);
  });

  it('FileOrCreate creates an empty file with mode 0644, but not its parent', async () => {
    const path = join(host, 'created-file');
    await setUp(podWith([{ name: 'h', hostPath: { path, type: 'FileOrCreate' } }]), scratchDir('vol-'));
    expect(await text(path)).toBe('');
    expect(await modeOf(path)).toBe(0o644);
    const orphan = join(host, 'no-parent/file');
    expect(await failure(setUp(podWith([{ name: 'h', hostPath: { path: orphan, type: 'FileOrCreate' } }]), scratchDir('vol-')))).toMatchObject({ reason: 'FailedMount' });
  });

  const bad: [string, string, string][] = [
    ['Directory', 'file', 'is not a directory'],
    ['Directory', 'missing', 'is not a directory'],
    ['DirectoryOrCreate', 'file', 'is not a directory'],
    ['File', 'dir', 'is not a file'],
    ['File', 'missing', 'is not a file'],
    ['FileOrCreate', 'dir', 'is not a file'],
    ['Socket', 'file', 'is not a socket file'],
    ['CharDevice', 'file', 'is not a character device'],
    ['BlockDevice', 'file', 'is not a block device'],
  ];
  it.each(bad)('type %j refuses %s: %s', async (type, path, message) => {
    const full = join(host, path);
    const error = await failure(setUp(podWith([{ name: 'h', hostPath: { path: full, type } }]), scratchDir('vol-')));
    expect(error.reason).toBe('FailedMount');
    expect(error.message).toBe(`MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${full} ${message}`);
  });

  it('a relative path is refused', async () => {
    const error = await failure(setUp(podWith([{ name: 'h', hostPath: { path: 'etc', type: 'DirectoryOrCreate' } }]), scratchDir('vol-')));
    expect(error).toMatchObject({ reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "h" : hostPath "etc" must be an absolute path' });
    expect(existsSync(join(process.cwd(), 'etc'))).toBe(false);
  });

  it('an unknown type is refused', async () => {
    const error = await failure(setUp(podWith([{ name: 'h', hostPath: { path: host, type: 'Pipe' } }]), scratchDir('vol-')));
    expect(error).toMatchObject({ reason: 'FailedMount' });
    expect(error.message).toContain('invalid hostPath source');
  });
});

describe('configMap and secret volumes', () => {
  it('project every key (data and binaryData) with mode 0644 by default', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'c', configMap: { name: 'cfg' } }]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'configmap', 'c');
    expect((await readdir(dir)).filter((n) => !n.startsWith('..')).sort()).toEqual(['app.conf', 'logo.bin', 'other']);
    expect(await text(join(dir, 'app.conf'))).toBe('port=80\n');
    expect(await readFile(join(dir, 'logo.bin'))).toEqual(Buffer.from('\x00\x01binary'));
    expect(await modeOf(join(dir, 'app.conf'))).toBe(0o644);
    expect(await readlink(join(dir, 'app.conf'))).toBe('..data/app.conf');
  });

  it('items choose keys, paths (nested) and modes; defaultMode applies to the rest', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([
      { name: 'c', configMap: { name: 'cfg', defaultMode: 0o440, items: [{ key: 'app.conf', path: 'conf/app.conf', mode: 0o600 }, { key: 'other', path: 'o.txt' }] } },
    ]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'configmap', 'c');
    expect((await readdir(dir)).filter((n) => !n.startsWith('..')).sort()).toEqual(['conf', 'o.txt']);
    expect(await text(join(dir, 'conf/app.conf'))).toBe('port=80\n');
    expect(await modeOf(join(dir, 'conf/app.conf'))).toBe(0o600);
    expect(await modeOf(join(dir, 'o.txt'))).toBe(0o440);
  });

  it('sources alike but for one field each get their own files, at every sync of each pod, in any order', async () => {
    const root = scratchDir('vol-');
    const source = (mode: number, path: string) => ({ name: 'cfg', defaultMode: 0o444, items: [{ key: 'other', path, mode }] });
    const pods = [podWith([{ name: 'c', configMap: source(0o600, 'a.txt') }]), podWith([{ name: 'c', configMap: source(0o640, 'a.txt') }]), podWith([{ name: 'c', configMap: source(0o600, 'b.txt') }])];
    for (const pod of [...pods, ...[...pods].reverse()]) await setUp(pod, root);
    const [first, second, third] = pods;
    expect(await modeOf(join(vol(root, first!, 'configmap', 'c'), 'a.txt'))).toBe(0o600);
    expect(await modeOf(join(vol(root, second!, 'configmap', 'c'), 'a.txt'))).toBe(0o640);
    expect((await readdir(vol(root, third!, 'configmap', 'c'))).filter((n) => !n.startsWith('..'))).toEqual(['b.txt']);
    // A source made invalid is refused every time, whatever was parsed before it.
    for (let i = 0; i < 2; i += 1) {
      const error = await failure(setUp(podWith([{ name: 'c', configMap: { ...source(0o600, 'a.txt'), defaultMode: 0o1777 } }]), root));
      expect(error.message).toContain('invalid configMap source');
    }
  });

  it('a secret volume decodes its values onto a tmpfs, with defaultMode', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 's', secret: { secretName: 'sec', defaultMode: 0o400 } }]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'secret', 's');
    expect(await text(join(dir, 'password'))).toBe('s3cret');
    expect(await text(join(dir, 'user'))).toBe('admin');
    expect(await modeOf(join(dir, 'password'))).toBe(0o400);
    expect(mountType(dir)[0]?.fstype).toBe('tmpfs');
    // Sized like a memory emptyDir: the pod's memory limit.
    expect(mountType(dir)[0]?.options).toContain('size=32768k');
    await tearDownPodVolumes(root, pod.metadata.uid!);
    expect(mountType(dir)).toEqual([]);
  });

  it('secret items', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 's', secret: { secretName: 'sec', items: [{ key: 'user', path: 'u', mode: 0o444 }] } }]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'secret', 's');
    expect((await readdir(dir)).filter((n) => !n.startsWith('..'))).toEqual(['u']);
    expect(await modeOf(join(dir, 'u'))).toBe(0o444);
    await tearDownPodVolumes(root, pod.metadata.uid!);
  });

  it('a missing non-optional source fails the mount and names the object', async () => {
    for (const [volume, message] of [
      [{ name: 'c', configMap: { name: 'absent' } }, 'configmap "absent" not found'],
      [{ name: 'c', secret: { secretName: 'absent' } }, 'secret "absent" not found'],
      [{ name: 'c', configMap: { name: 'cfg', items: [{ key: 'nope', path: 'n' }] } }, 'configmap references non-existent config key: nope'],
      [{ name: 'c', secret: { secretName: 'sec', items: [{ key: 'nope', path: 'n' }] } }, 'references non-existent secret key: nope'],
      [{ name: 'c', projected: { sources: [{ configMap: { name: 'absent' } }] } }, 'configmap "absent" not found'],
      [{ name: 'c', projected: { sources: [{ secret: { name: 'absent' } }] } }, 'secret "absent" not found'],
    ] as const) {
      const root = scratchDir('vol-');
      const error = await failure(setUp(podWith([volume]), root));
      expect(error).toMatchObject({ reason: 'FailedMount', message: `MountVolume.SetUp failed for volume "c" : ${message}` });
      await tearDownPodVolumes(root, `uid-${uidCounter}-${process.pid}`);
    }
  });

  it('an optional missing source is an empty volume; an optional missing key is left out', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([
      { name: 'c', configMap: { name: 'absent', optional: true } },
      { name: 's', secret: { secretName: 'absent', optional: true } },
      { name: 'k', configMap: { name: 'cfg', optional: true, items: [{ key: 'nope', path: 'n' }, { key: 'other', path: 'o' }] } },
    ]);
    await setUp(pod, root);
    expect((await readdir(vol(root, pod, 'configmap', 'c'))).filter((n) => !n.startsWith('..'))).toEqual([]);
    expect((await readdir(vol(root, pod, 'secret', 's'))).filter((n) => !n.startsWith('..'))).toEqual([]);
    expect((await readdir(vol(root, pod, 'configmap', 'k'))).filter((n) => !n.startsWith('..'))).toEqual(['o']);
    await tearDownPodVolumes(root, pod.metadata.uid!);
  });

  it('a re-sync reflects a changed ConfigMap by swapping ..data; an unchanged one is not rewritten', async () => {
    await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live', namespace: 'default' }, data: { k: 'v1', drop: 'x' } });
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'c', configMap: { name: 'live' } }]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'configmap', 'c');
    const first = await readlink(join(dir, '..data'));
    await setUp(pod, root);
    expect(await readlink(join(dir, '..data'))).toBe(first);

    const current = await api.client.get(builtin.configMaps, 'live', { namespace: 'default' });
    await api.client.update(builtin.configMaps, { ...current, data: { k: 'v2', added: 'y' } });
    await setUp(pod, root);
    const second = await readlink(join(dir, '..data'));
    expect(second).not.toBe(first);
    expect(await text(join(dir, 'k'))).toBe('v2');
    expect(await text(join(dir, 'added'))).toBe('y');
    await expect(lstat(join(dir, 'drop'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existsSync(join(dir, first))).toBe(false);
  });
});

describe('downwardAPI volumes', () => {
  it('write metadata fields, labels and annotations files, and resources with divisors', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([
      {
        name: 'd',
        downwardAPI: {
          defaultMode: 0o640,
          items: [
            { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
            { path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } },
            { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
            { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
            { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' }, mode: 0o600 },
            { path: 'tier', fieldRef: { fieldPath: "metadata.labels['tier']" } },
            { path: 'res/cpu', resourceFieldRef: { containerName: 'main', resource: 'limits.cpu', divisor: '1m' } },
            { path: 'res/mem', resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1Mi' } },
            { path: 'res/storage', resourceFieldRef: { containerName: 'main', resource: 'limits.ephemeral-storage' } },
          ],
        },
      },
    ]);
    await setUp(pod, root);
    const dir = vol(root, pod, 'downward-api', 'd');
    expect(await text(join(dir, 'name'))).toBe(pod.metadata.name);
    expect(await text(join(dir, 'ns'))).toBe('default');
    expect(await text(join(dir, 'uid'))).toBe(pod.metadata.uid);
    expect(await text(join(dir, 'labels'))).toBe('app="web"\ntier="front"');
    expect(await text(join(dir, 'annotations'))).toBe('a="1"');
    expect(await text(join(dir, 'tier'))).toBe('front');
    expect(await text(join(dir, 'res/cpu'))).toBe('500');
    expect(await text(join(dir, 'res/mem'))).toBe('32');
    // No limit and no allocatable given for it: 0, as documented.
    expect(await text(join(dir, 'res/storage'))).toBe('0');
    expect(await modeOf(join(dir, 'name'))).toBe(0o640);
    expect(await modeOf(join(dir, 'annotations'))).toBe(0o600);
  });

  it('refuses the env-only field paths', async () => {
    const error = await failure(setUp(podWith([{ name: 'd', downwardAPI: { items: [{ path: 'node', fieldRef: { fieldPath: 'spec.nodeName' } }] } }]), scratchDir('vol-')));
    expect(error).toMatchObject({ reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "d" : unsupported fieldPath: spec.nodeName' });
  });
});

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number; aud: string[]; 'kubernetes.io': { pod?: { name: string; uid: string } } };

describe('projected volumes', () => {
  it('combine configMap, secret, downwardAPI and a service-account token bound to the pod', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([
      {
        name: 'p',
        projected: {
          defaultMode: 0o444,
          sources: [
            { configMap: { name: 'cfg', items: [{ key: 'other', path: 'cfg/other' }] } },
            { secret: { name: 'sec', items: [{ key: 'user', path: 'sec/user', mode: 0o400 }] } },
            { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
            { serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 7200 } },
          ],
        },
      },
    ]);
    // The pod must exist for the API server to bind a token to it.
    await api.client.create(builtin.pods, pod);
    const stored = await api.client.get(builtin.pods, pod.metadata.name!, { namespace: 'default' });
    await setUp(stored, root);
    const dir = vol(root, stored, 'projected', 'p');
    expect(await text(join(dir, 'cfg/other'))).toBe('o');
    expect(await text(join(dir, 'sec/user'))).toBe('admin');
    expect(await modeOf(join(dir, 'sec/user'))).toBe(0o400);
    expect(await text(join(dir, 'labels'))).toBe('app="web"\ntier="front"');
    expect(await modeOf(join(dir, 'token'))).toBe(0o444);
    const claims = claimsOf(await text(join(dir, 'token')));
    expect(claims.aud).toEqual(['vault']);
    expect(claims.exp - claims.iat).toBe(7200);
    expect(claims['kubernetes.io'].pod).toEqual({ name: stored.metadata.name, uid: stored.metadata.uid });
    expect(mountType(dir)[0]?.fstype).toBe('tmpfs');

    // The API server's admission gave the pod its API-access volume too: token, CA, namespace.
    const access = stored.spec.volumes!.find((v) => v.name.startsWith('svc-api-access-'))!;
    const accessDir = vol(root, stored, 'projected', access.name);
    expect((await readdir(accessDir)).filter((n) => !n.startsWith('..')).sort()).toEqual(['ca.crt', 'namespace', 'token']);
    expect(await text(join(accessDir, 'ca.crt'))).toBe('CA PEM');
    expect(await text(join(accessDir, 'namespace'))).toBe('default');
    expect(claimsOf(await text(join(accessDir, 'token'))).aud).toEqual(AUDIENCES);
    await tearDownPodVolumes(root, stored.metadata.uid!);
  });

  it('keeps a token until 80 % of its lifetime has passed, then renews it', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 1000 } }] } }]);
    await api.client.create(builtin.pods, pod);
    const stored = await api.client.get(builtin.pods, pod.metadata.name!, { namespace: 'default' });
    const start = api.clock.now;
    const at = (ms: number) => () => start + ms;

    await setUp(stored, root, { now: at(0) });
    const dir = vol(root, stored, 'projected', 'p');
    const first = await text(join(dir, 'token'));
    expect(claimsOf(first).aud).toEqual(AUDIENCES);
    expect(claimsOf(first).exp - claimsOf(first).iat).toBe(1000);

    api.clock.now = start + 790_000;
    await setUp(stored, root, { now: at(790_000) });
    expect(await text(join(dir, 'token'))).toBe(first);

    api.clock.now = start + 801_000;
    await setUp(stored, root, { now: at(801_000) });
    const second = await text(join(dir, 'token'));
    expect(second).not.toBe(first);
    expect(claimsOf(second).iat).toBeGreaterThan(claimsOf(first).iat);
    api.clock.now = Date.now();
    await tearDownPodVolumes(root, stored.metadata.uid!);
  });
});

describe('fsGroup', () => {
  it('gives every volume but hostPath the group: group-readable files, setgid directories', async () => {
    const root = scratchDir('vol-');
    const pod = podWith([
      { name: 'c', configMap: { name: 'cfg', defaultMode: 0o600, items: [{ key: 'app.conf', path: 'conf/app.conf' }] } },
      { name: 'e', emptyDir: {} },
      { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
    ]);
    pod.spec.securityContext = { fsGroup: 4321 };
    await api.client.create(builtin.pods, pod);
    const stored = await api.client.get(builtin.pods, pod.metadata.name!, { namespace: 'default' });
    await setUp(stored, root);
    const config = vol(root, stored, 'configmap', 'c');
    const file = join(config, 'conf/app.conf');
    expect(await modeOf(file)).toBe(0o640);
    expect((await stat(file)).gid).toBe(4321);
    expect(await modeOf(join(config, 'conf'))).toBe(0o2755);
    expect((await stat(join(config, 'conf'))).gid).toBe(4321);
    expect(await modeOf(config)).toBe(0o2755);
    const empty = vol(root, stored, 'empty-dir', 'e');
    expect(await modeOf(empty)).toBe(0o2777);
    expect((await stat(empty)).gid).toBe(4321);
    const token = join(vol(root, stored, 'projected', 'p'), 'token');
    expect(await modeOf(token)).toBe(0o640);
    expect((await stat(token)).gid).toBe(4321);

    // A re-sync finds everything as it should be and writes nothing.
    const before = await readlink(join(config, '..data'));
    await setUp(stored, root);
    expect(await readlink(join(config, '..data'))).toBe(before);
  });

  it('a malformed fsGroup fails the mount', async () => {
    const pod = podWith([{ name: 'e', emptyDir: {} }]);
    pod.spec.securityContext = { fsGroup: 'staff' };
    expect(await failure(setUp(pod, scratchDir('vol-')))).toMatchObject({ reason: 'FailedMount', message: 'invalid securityContext.fsGroup: "staff"' });
  });
});

describe('mounts(container)', () => {
  it('maps volumeMounts to CRI mounts: read-only API data, readOnly, propagation', async () => {
    const host = scratchDir('host-');
    const root = scratchDir('vol-');
    const container: Container = {
      name: 'main',
      image: 'busybox',
      securityContext: { privileged: true },
      volumeMounts: [
        { name: 'cfg', mountPath: '/etc/cfg' },
        { name: 'scratch', mountPath: '/scratch' },
        { name: 'scratch', mountPath: '/scratch-ro', readOnly: true },
        { name: 'host', mountPath: '/host', mountPropagation: 'HostToContainer' },
        { name: 'host', mountPath: '/host-bi', mountPropagation: 'Bidirectional' },
      ],
    };
    const pod = podWith(
      [
        { name: 'cfg', configMap: { name: 'cfg' } },
        { name: 'scratch', emptyDir: {} },
        { name: 'host', hostPath: { path: host } },
      ],
      [container],
    );
    const volumes = await setUp(pod, root);
    expect(volumes.podDir).toBe(join(root, 'pods', pod.metadata.uid!));
    const base = { selinuxRelabel: false, uidMappings: [], gidMappings: [], recursiveReadOnly: false, image: null };
    expect(volumes.mounts(container)).toEqual([
      { ...base, containerPath: '/etc/cfg', hostPath: vol(root, pod, 'configmap', 'cfg'), readonly: true, propagation: 'PROPAGATION_PRIVATE' },
      { ...base, containerPath: '/scratch', hostPath: vol(root, pod, 'empty-dir', 'scratch'), readonly: false, propagation: 'PROPAGATION_PRIVATE' },
      { ...base, containerPath: '/scratch-ro', hostPath: vol(root, pod, 'empty-dir', 'scratch'), readonly: true, propagation: 'PROPAGATION_PRIVATE' },
      { ...base, containerPath: '/host', hostPath: host, readonly: false, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
      { ...base, containerPath: '/host-bi', hostPath: host, readonly: false, propagation: 'PROPAGATION_BIDIRECTIONAL' },
    ]);
  });

  it('subPath mounts a path inside the volume, created with the volume mode when missing', async () => {
    const root = scratchDir('vol-');
    const container: Container = {
      name: 'main',
      image: 'busybox',
      volumeMounts: [
        { name: 'scratch', mountPath: '/data', subPath: 'a/b' },
        { name: 'cfg', mountPath: '/etc/app.conf', subPath: 'app.conf' },
        { name: 'scratch', mountPath: '/per-pod', subPathExpr: 'pods/$(POD_NAME)' },
      ],
    };
    const pod = podWith([{ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cfg' } }], [container]);
    const volumes = await setUp(pod, root);
    const mounts = volumes.mounts(container, [{ key: 'POD_NAME', value: pod.metadata.name! }]);
    const scratch = vol(root, pod, 'empty-dir', 'scratch');
    expect(mounts[0]!.hostPath).toBe(join(scratch, 'a/b'));
    expect(await modeOf(join(scratch, 'a/b'))).toBe(0o777);
    // A ConfigMap key resolves to the file of the current content, as a kubelet subPath mount does.
    expect(mounts[1]!.hostPath).toBe(join(vol(root, pod, 'configmap', 'cfg'), await readlink(join(vol(root, pod, 'configmap', 'cfg'), '..data')), 'app.conf'));
    expect(mounts[1]!.readonly).toBe(true);
    expect(mounts[2]!.hostPath).toBe(join(scratch, 'pods', pod.metadata.name!));
  });

  it.each([
    [{ name: 'scratch', mountPath: '/x', subPath: '/etc' }, 'error SubPath `/etc` must not be an absolute path'],
    [{ name: 'scratch', mountPath: '/x', subPath: 'a/../../etc' }, "unable to provision SubPath `a/../../etc`: must not contain '..'"],
    [{ name: 'scratch', mountPath: '/x', subPath: 'escape' }, 'not within volume path'],
    [{ name: 'nope', mountPath: '/x' }, 'cannot find volume "nope" to mount into container "main"'],
    [{ name: 'scratch', mountPath: '/x', mountPropagation: 'Bidirectional' as const }, 'needs a privileged container'],
  ])('refuses %j', async (mount, message) => {
    const root = scratchDir('vol-');
    const container: Container = { name: 'main', image: 'busybox', volumeMounts: [mount] };
    const pod = podWith([{ name: 'scratch', emptyDir: {} }], [container]);
    const volumes = await setUp(pod, root);
    symlinkSync('/etc', join(vol(root, pod, 'empty-dir', 'scratch'), 'escape'));
    let error: { reason?: string; message: string } | undefined;
    try {
      volumes.mounts(container);
    } catch (e) {
      error = e as { reason?: string; message: string };
    }
    expect(error?.reason).toBe('CreateContainerConfigError');
    expect(error?.message).toContain(message);
  });
});

describe('tearDownPodVolumes', () => {
  it('leaves hostPath content alone and removes the pod directory', async () => {
    const host = scratchDir('host-');
    writeFileSync(join(host, 'keep'), 'k');
    const root = scratchDir('vol-');
    const pod = podWith([{ name: 'h', hostPath: { path: host } }, { name: 'm', emptyDir: { medium: 'Memory' } }, { name: 's', secret: { secretName: 'sec' } }]);
    await setUp(pod, root);
    await tearDownPodVolumes(root, pod.metadata.uid!);
    expect(readFileSync(join(host, 'keep'), 'utf8')).toBe('k');
    expect(existsSync(join(root, 'pods', pod.metadata.uid!))).toBe(false);
    expect(execFileSync('cat', ['/proc/self/mountinfo']).toString()).not.toContain(join(root, 'pods'));
    // Again: nothing left to do is not an error.
    await tearDownPodVolumes(root, pod.metadata.uid!);
  });
});

describe('remembered writes (a hollow node\'s writtenPayloads)', () => {
  it('leave a volume whose payload is unchanged as it is, write a changed one, and start over after a teardown', async () => {
    const root = scratchDir('vol-');
    const writtenPayloads = new Map<string, string>();
    await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'remembered', namespace: 'default' }, data: { key: 'one' } });
    const pod = podWith([{ name: 'cfg', configMap: { name: 'remembered' } }]);
    await setUp(pod, root, { writtenPayloads });
    const file = join(vol(root, pod, 'configmap', 'cfg'), 'key');
    expect(await text(file)).toBe('one');
    expect([...writtenPayloads.keys()]).toEqual([vol(root, pod, 'configmap', 'cfg')]);
    // Unchanged payload: the files are neither compared nor written (a change made behind the
    // agent's back stays, which only a root dir nothing else writes to can afford).
    writeFileSync(join(vol(root, pod, 'configmap', 'cfg'), '..data', 'key'), 'changed on disk');
    await setUp(pod, root, { writtenPayloads });
    expect(await text(file)).toBe('changed on disk');
    // A changed ConfigMap is written.
    await api.client.patch(builtin.configMaps, 'remembered', { data: { key: 'two' } }, { namespace: 'default' });
    await setUp(pod, root, { writtenPayloads });
    expect(await text(file)).toBe('two');
    // Torn down and forgotten: the next set-up writes from scratch.
    forgetPodPayloads(writtenPayloads, root, pod.metadata.uid!);
    await tearDownPodVolumes(root, pod.metadata.uid!);
    expect(writtenPayloads.size).toBe(0);
    await setUp(pod, root, { writtenPayloads });
    expect(await text(file)).toBe('two');
  });

  it('keep the projected token in memory: a second sync asks for none and reads no file', async () => {
    const root = scratchDir('vol-');
    const writtenPayloads = new Map<string, string>();
    let requests = 0;
    const counting: PodObjectReader = { ...objects, serviceAccountToken: (pod, request) => (requests++, objects.serviceAccountToken(pod, request)) };
    const made = podWith([{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } }]);
    // The pod must exist for the API server to bind a token to it.
    await api.client.create(builtin.pods, made);
    const pod = await api.client.get(builtin.pods, made.metadata.name!, { namespace: 'default' });
    await setUp(pod, root, { writtenPayloads, objects: counting });
    const file = join(vol(root, pod, 'projected', 'token'), 'token');
    const token = await text(file);
    // One TokenRequest per token volume (admission added the API-access one beside ours).
    const first = requests;
    expect(first).toBeGreaterThanOrEqual(1);
    expect(token.split('.')).toHaveLength(3);
    // The file changed behind the agent's back is not read: the remembered token is still fresh, so
    // no TokenRequest (one that read the file would find no token there and ask for a new one).
    writeFileSync(join(vol(root, pod, 'projected', 'token'), '..data', 'token'), 'not a token');
    await setUp(pod, root, { writtenPayloads, objects: counting });
    expect(requests).toBe(first);
    expect(token.split('.')).toHaveLength(3);
    // A teardown's forget drops the token with the payload digests.
    forgetPodPayloads(writtenPayloads, root, pod.metadata.uid!);
    expect(writtenPayloads.size).toBe(0);
  });

  it('remember writing no token: a first sync asks for one without reading the volume, where the daemon keeps the file\'s fresh one', async () => {
    const made = podWith([{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } }]);
    await api.client.create(builtin.pods, made);
    const pod = await api.client.get(builtin.pods, made.metadata.name!, { namespace: 'default' });
    let requests = 0;
    const counting: PodObjectReader = { ...objects, serviceAccountToken: (p, request) => (requests++, objects.serviceAccountToken(p, request)) };
    // A fresh token left in the volume by an earlier agent on the same root dir.
    const root = scratchDir('vol-');
    await setUp(pod, root, { objects: counting });
    const file = join(vol(root, pod, 'projected', 'token'), 'token');
    const left = await text(file);
    const perSync = requests;
    // The daemon (no remembered writes) reads it and keeps it: no TokenRequest.
    await setUp(pod, root, { objects: counting });
    expect(requests).toBe(perSync);
    expect(await text(file)).toBe(left);
    // A hollow node remembers writing none there, so it reads nothing and asks for a token.
    const writtenPayloads = new Map<string, string>();
    await setUp(pod, root, { writtenPayloads, objects: counting });
    expect(requests).toBe(2 * perSync);
    expect(writtenPayloads.get(`${vol(root, pod, 'projected', 'token')}/\0token\0token`)).toBe(await text(file));
  });
});

describe("unwritten volumes (a hollow node's writeFiles: false)", () => {
  it('make every payload as the daemon does and write nothing: the mounts name the daemon\'s paths, a missing source fails the mount as ever', async () => {
    const made = podWith(
      [
        { name: 'cfg', configMap: { name: 'cfg' } },
        { name: 'sec', secret: { secretName: 'sec' } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'scratch', emptyDir: {} },
        { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { configMap: { name: 'kube-root-ca.crt' } }] } },
      ],
      [{ name: 'main', image: 'busybox', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }, { name: 'scratch', mountPath: '/work', subPath: 'a/b' }, { name: 'token', mountPath: '/var/run/token' }] }],
    );
    await api.client.create(builtin.pods, made);
    const pod = await api.client.get(builtin.pods, made.metadata.name!, { namespace: 'default' });
    let requests = 0;
    const counting: PodObjectReader = { ...objects, serviceAccountToken: (p, request) => (requests++, objects.serviceAccountToken(p, request)) };
    const root = scratchDir('vol-');
    const writtenPayloads = new Map<string, string>();
    const volumes = await setUp(pod, root, { writeFiles: false, writtenPayloads, objects: counting });
    expect(existsSync(join(root, 'pods'))).toBe(false);
    // (Admission added the API-access volume's mount after these three.)
    expect(volumes.mounts(pod.spec.containers[0]!).slice(0, 3).map((m) => [m.containerPath, m.hostPath, m.readonly])).toEqual([
      ['/etc/cfg', vol(root, pod, 'configmap', 'cfg'), true],
      ['/work', join(vol(root, pod, 'empty-dir', 'scratch'), 'a/b'), false],
      ['/var/run/token', vol(root, pod, 'projected', 'token'), true],
    ]);
    expect(existsSync(join(root, 'pods'))).toBe(false);
    // The token was asked for (one a token volume: admission may have added the API-access one) and is remembered in memory.
    const first = requests;
    expect(first).toBeGreaterThanOrEqual(1);
    expect(writtenPayloads.get(`${vol(root, pod, 'projected', 'token')}/\0token\0token`)?.split('.')).toHaveLength(3);
    await setUp(pod, root, { writeFiles: false, writtenPayloads, objects: counting });
    expect(requests).toBe(first);
    // A source that is not there is the daemon's error, files or not.
    const missing = podWith([{ name: 'gone', configMap: { name: 'no-such-config' } }]);
    const error = await failure(setUp(missing, root, { writeFiles: false }));
    expect(error).toMatchObject({ reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "gone" : configmap "no-such-config" not found' });
    expect(existsSync(join(root, 'pods'))).toBe(false);
  });
});
