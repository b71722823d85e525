/**
 * Image import from the agent's images directory, image GC by thresholds, dead-container GC and
 * the Node's status.images, against a real containerd.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import {
  BUSYBOX_IMAGE,
  ContainerGarbageCollector,
  ImageGarbageCollector,
  PAUSE_IMAGE,
  criRuntimeInfo,
  criSnapshotter,
  importAgentImages,
  importImageArchives,
  importImageDirectory,
  nodeImagesReader,
  nodeStatusDefaults,
  nodeStatusImages,
  selectImagesToFree,
  startGarbageCollection,
  startNodeStatus,
  writeTar,
  type Input,
  type PodSandboxConfig,
} from '../../../src/nodeagent/index.js';
import { startClientTestServer, type ClientTestServer } from '../../client/support.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { EventLog, writeTinyImage } from './support.js';

let containerd: RunningContainerd;
const scratch = mkdtempSync(join(tmpdir(), 'svc-image-gc-'));

beforeAll(async () => {
  containerd = await startContainerd();
}, 120_000);

afterAll(async () => {
  await containerd?.stop();
  rmSync(scratch, { recursive: true, force: true });
  expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], containerdRunning: false });
}, 120_000);

const sha256 = (data: Uint8Array) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** A `docker save` style archive: manifest.json, the config, one layer tar. */
function writeDockerArchive(path: string, ref: string): void {
  const layer = writeTar([{ type: 'file', path: 'docker.txt', data: Buffer.from(`docker archive ${ref}\n`) }]);
  const config = Buffer.from(
    JSON.stringify({ architecture: process.arch === 'x64' ? 'amd64' : process.arch, os: 'linux', config: { Cmd: ['/docker.txt'] }, rootfs: { type: 'layers', diff_ids: [sha256(layer)] } }),
  );
  const configName = `${sha256(config).slice('sha256:'.length)}.json`;
  const manifest = Buffer.from(JSON.stringify([{ Config: configName, RepoTags: [ref], Layers: ['layer/layer.tar'] }]));
  writeFileSync(
    path,
    writeTar([
      { type: 'file', path: 'manifest.json', data: manifest },
      { type: 'file', path: configName, data: config },
      { type: 'dir', path: 'layer' },
      { type: 'file', path: 'layer/layer.tar', data: layer },
    ]),
  );
}

async function hasImage(ref: string): Promise<boolean> {
  return (await containerd.cri.imageStatus({ image: { image: ref } })).image !== null;
}

const OCI_REF = 'registry.invalid/imported/oci:1';
const DOCKER_REF = 'registry.invalid/imported/docker:1';

describe('image import from <root-dir>/images', () => {
  it('imports every OCI and docker archive, reports files that are not archives, skips dot files and directories', async () => {
    const dir = join(scratch, 'images');
    mkdirSync(join(dir, 'subdir'), { recursive: true });
    writeTinyImage(dir, OCI_REF, 'a-oci.tar');
    writeDockerArchive(join(dir, 'b-docker.tar'), DOCKER_REF);
    writeFileSync(join(dir, 'c-notes.txt'), 'not an image\n');
    writeFileSync(join(dir, '.partial.tmp'), 'half a copy');
    const snapshotter = await criSnapshotter(containerd.cri);
    expect(snapshotter).toBe(containerd.snapshotter);

    const results = await importImageDirectory(dir, { address: containerd.address, snapshotter });
    expect(results.map((r) => [r.file.split('/').pop(), r.imported])).toEqual([
      ['a-oci.tar', true],
      ['b-docker.tar', true],
      ['c-notes.txt', false],
    ]);
    expect(results[0]).toMatchObject({ kind: 'oci' });
    expect(results[1]).toMatchObject({ kind: 'docker' });
    const failed = results[2]!;
    expect(!failed.imported && failed.error.message).toContain('not an image archive');
    expect(await hasImage(OCI_REF)).toBe(true);
    expect(await hasImage(DOCKER_REF)).toBe(true);
  });

  it('importAgentImages reads <root-dir>/images with the runtime\'s snapshotter', async () => {
    const root = join(scratch, 'agent-root');
    mkdirSync(join(root, 'images'), { recursive: true });
    writeTinyImage(join(root, 'images'), 'registry.invalid/imported/at-start:1');
    const results = await importAgentImages({ cri: containerd.cri, endpoint: containerd.endpoint, rootDir: root });
    expect(results.map((r) => r.imported)).toEqual([true]);
    expect(await hasImage('registry.invalid/imported/at-start:1')).toBe(true);
  });

  it('a missing directory imports nothing', async () => {
    expect(await importImageDirectory(join(scratch, 'nope'), { address: containerd.address, snapshotter: containerd.snapshotter })).toEqual([]);
  });
});

function sandboxConfig(name: string, uid: string): Input<PodSandboxConfig> {
  return {
    metadata: { name, uid, namespace: 'default', attempt: 0 },
    hostname: name,
    logDirectory: join(containerd.logRoot, `default_${name}_${uid}`),
    labels: { 'svc.io/pod.name': name, 'svc.io/pod.namespace': 'default', 'svc.io/pod.uid': uid },
    linux: {},
  };
}

async function createContainer(sandboxId: string, config: Input<PodSandboxConfig>, name: string, attempt: number, command: string[] = ['true']): Promise<string> {
  const uid = config.metadata!.uid!;
  const { containerId } = await containerd.cri.createContainer({
    podSandboxId: sandboxId,
    sandboxConfig: config,
    config: {
      metadata: { name, attempt },
      image: { image: BUSYBOX_IMAGE },
      command,
      logPath: `${name}/${attempt}.log`,
      labels: { 'svc.io/pod.name': config.metadata!.name!, 'svc.io/pod.namespace': 'default', 'svc.io/pod.uid': uid, 'svc.io/container.name': name },
    },
  });
  return containerId;
}

describe('image garbage collection', () => {
  const node = { apiVersion: 'v1', kind: 'Node', name: 'gc-node' };
  let sandboxId: string;

  beforeAll(async () => {
    // busybox is in use by a container (created, never started); the imported images are not.
    const config = sandboxConfig('uses-busybox', 'uid-uses-busybox');
    sandboxId = (await containerd.cri.runPodSandbox({ config })).podSandboxId;
    await createContainer(sandboxId, config, 'main', 0);
    const extra = writeTinyImage(scratch, 'registry.invalid/gc/unused:1');
    await importImageArchives([extra.path], { address: containerd.address, snapshotter: containerd.snapshotter });
  }, 60_000);

  afterAll(async () => {
    await containerd.cri.stopPodSandbox({ podSandboxId: sandboxId });
    await containerd.cri.removePodSandbox({ podSandboxId: sandboxId });
  });

  it('high threshold 100 disables collection', async () => {
    const gc = new ImageGarbageCollector({ cri: containerd.cri, policy: { highThresholdPercent: 100, lowThresholdPercent: 0, minimumAgeMs: 0 } });
    expect(await gc.collect()).toEqual({ usagePercent: undefined, bytesToFree: 0, freedBytes: 0, removed: [] });
    expect(await hasImage('registry.invalid/gc/unused:1')).toBe(true);
  });

  it('an image younger than the minimum age is kept even when the disk is over the threshold', async () => {
    const events = new EventLog();
    const gc = new ImageGarbageCollector({ cri: containerd.cri, policy: { highThresholdPercent: 1, lowThresholdPercent: 0, minimumAgeMs: 120_000 }, events, node });
    const result = await gc.collect();
    expect(result.removed).toEqual([]);
    expect(result.bytesToFree).toBeGreaterThan(0);
    expect(events.reasons()).toEqual(['FreeDiskSpaceFailed']);
    expect(await hasImage('registry.invalid/gc/unused:1')).toBe(true);
  });

  it('over the high threshold, unused images go; the pause image and images in use stay; FreeDiskSpaceFailed when not enough could be freed', async () => {
    const events = new EventLog();
    let now = 1_000_000;
    const gc = new ImageGarbageCollector({ cri: containerd.cri, policy: { highThresholdPercent: 1, lowThresholdPercent: 0, minimumAgeMs: 60_000 }, events, node, now: () => now });
    expect((await gc.collect()).removed).toEqual([]); // first seen now
    now += 60_000;
    const unusedId = (await containerd.cri.imageStatus({ image: { image: 'registry.invalid/gc/unused:1' } })).image!.id;
    const result = await gc.collect();
    expect(result.usagePercent).toBeGreaterThan(1);
    expect(result.removed).toContain(unusedId);
    expect(result.freedBytes).toBeGreaterThan(0);
    expect(await hasImage('registry.invalid/gc/unused:1')).toBe(false);
    expect(await hasImage(OCI_REF)).toBe(false);
    expect(await hasImage(BUSYBOX_IMAGE)).toBe(true);
    expect(await hasImage(PAUSE_IMAGE)).toBe(true);
    expect(events.reasons()).toContain('FreeDiskSpaceFailed');
    expect(events.events.every((e) => e.object.name === 'gc-node' && e.type === 'Warning')).toBe(true);
  });

  it('the least recently used images are chosen first, only as many as needed', () => {
    const images = [
      { id: 'recent', size: 100, firstDetected: 0, lastUsed: 900 },
      { id: 'never-used', size: 100, firstDetected: 0, lastUsed: 0 },
      { id: 'old-use', size: 100, firstDetected: 0, lastUsed: 500 },
      { id: 'too-young', size: 100, firstDetected: 950, lastUsed: 0 },
    ];
    expect(selectImagesToFree(images, 150, 1000, 100).map((i) => i.id)).toEqual(['never-used', 'old-use']);
    expect(selectImagesToFree(images, 1e9, 1000, 100).map((i) => i.id)).toEqual(['never-used', 'old-use', 'recent']);
    expect(selectImagesToFree(images, 0, 1000, 100)).toEqual([]);
  });

  it('a low threshold not below the high one is refused', () => {
    expect(() => new ImageGarbageCollector({ cri: containerd.cri, policy: { highThresholdPercent: 80, lowThresholdPercent: 80, minimumAgeMs: 0 } })).toThrow(/below the high threshold/);
    expect(() => new ImageGarbageCollector({ cri: containerd.cri, policy: { highThresholdPercent: 101, lowThresholdPercent: 0, minimumAgeMs: 0 } })).toThrow(/within \[0, 100\]/);
  });
});

describe('dead-container garbage collection', () => {
  it('keeps the newest dead instance per container, never a running one; a pod that is gone loses its containers, their logs, its sandbox and its log directory', async () => {
    const config = sandboxConfig('dead', 'uid-dead');
    const sandboxId = (await containerd.cri.runPodSandbox({ config })).podSandboxId;
    const mains = [];
    for (let attempt = 0; attempt < 3; attempt++) mains.push(await createContainer(sandboxId, config, 'main', attempt));
    const side = await createContainer(sandboxId, config, 'side', 0);
    const web = await createContainer(sandboxId, config, 'web', 0, ['sh', '-c', 'echo serving; exec sleep 3600']);
    await containerd.cri.startContainer({ containerId: web });
    const webLog = (await containerd.cri.containerStatus({ containerId: web })).status!.logPath;

    let exists = true;
    const gc = new ContainerGarbageCollector({ cri: containerd.cri, podExists: (uid) => uid !== 'uid-dead' || exists, podLogsDir: containerd.logRoot });
    const podLogDir = join(containerd.logRoot, 'default_dead_uid-dead');
    const first = await gc.collect();
    expect(first.errors).toEqual([]);
    expect([...first.removedContainers].sort()).toEqual([mains[0], mains[1]].sort());
    const left = (await containerd.cri.listContainers({ filter: { labelSelector: { 'svc.io/pod.uid': 'uid-dead' } } })).containers.map((c) => c.id).sort();
    expect(left).toEqual([mains[2], side, web].sort());

    // Not yet sure the pod is gone (sources not ready): nothing more goes.
    exists = false;
    const notReady = await gc.collect(false);
    expect(notReady.removedContainers).toEqual([]);
    expect(notReady.removedLogDirs).toEqual([]);
    expect(existsSync(podLogDir)).toBe(true);

    // The pod is gone; its sandbox stopped (and with it the running container).
    await containerd.cri.stopPodSandbox({ podSandboxId: sandboxId });
    expect(existsSync(webLog)).toBe(true);
    const second = await gc.collect();
    expect(second.errors).toEqual([]);
    expect([...second.removedContainers].sort()).toEqual([mains[2], side, web].sort());
    expect(second.removedSandboxes).toEqual([sandboxId]);
    expect(existsSync(webLog)).toBe(false);
    expect(second.removedLogDirs).toEqual([podLogDir]);
    expect(existsSync(podLogDir)).toBe(false);
    expect((await containerd.cri.listPodSandbox({ filter: { labelSelector: { 'svc.io/pod.uid': 'uid-dead' } } })).items).toEqual([]);
  });

  it('--maximum-dead-containers caps the dead containers on the node, oldest first', async () => {
    const config = sandboxConfig('capped', 'uid-capped');
    const sandboxId = (await containerd.cri.runPodSandbox({ config })).podSandboxId;
    try {
      const ids = [];
      for (const name of ['a', 'b', 'c']) ids.push(await createContainer(sandboxId, config, name, 0));
      const gc = new ContainerGarbageCollector({ cri: containerd.cri, podExists: () => true, policy: { minimumAgeMs: 0, maxPerPodContainer: 1, maxContainers: 2 } });
      const result = await gc.collect();
      expect(result.removedContainers).toEqual([ids[0]]);
      // Younger than the minimum age: kept whatever the limits.
      const young = new ContainerGarbageCollector({ cri: containerd.cri, podExists: () => false, policy: { minimumAgeMs: 3_600_000, maxPerPodContainer: 0, maxContainers: 0 } });
      expect((await young.collect()).removedContainers).toEqual([]);
    } finally {
      await containerd.cri.stopPodSandbox({ podSandboxId: sandboxId });
      await containerd.cri.removePodSandbox({ podSandboxId: sandboxId });
    }
  });
});

describe('startGarbageCollection', () => {
  it('runs the collectors on their periods until stopped, reporting failures', async () => {
    const config = sandboxConfig('looped', 'uid-looped');
    const sandboxId = (await containerd.cri.runPodSandbox({ config })).podSandboxId;
    const errors: string[] = [];
    const loop = startGarbageCollection({
      containers: new ContainerGarbageCollector({ cri: containerd.cri, podExists: () => false }),
      images: new ImageGarbageCollector({ cri: containerd.cri, policy: { highThresholdPercent: 99, lowThresholdPercent: 98, minimumAgeMs: 0 }, filesystem: async () => ({ capacityBytes: 0, availableBytes: 0 }) }),
      containerPeriodMs: 20,
      imagePeriodMs: 20,
      onError: (what, error) => errors.push(`${what}: ${(error as Error).message}`),
    });
    try {
      await createContainer(sandboxId, config, 'main', 0);
      for (let i = 0; i < 200; i++) {
        const left = (await containerd.cri.listContainers({ filter: { labelSelector: { 'svc.io/pod.uid': 'uid-looped' } } })).containers;
        if (left.length === 0 && errors.length > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect((await containerd.cri.listContainers({ filter: { labelSelector: { 'svc.io/pod.uid': 'uid-looped' } } })).containers).toEqual([]);
      // The image pass fails on a filesystem of no size, and says so.
      expect(errors[0]).toBe('images: invalid capacity 0 on image filesystem');
    } finally {
      loop.stop();
      await containerd.cri.stopPodSandbox({ podSandboxId: sandboxId });
      await containerd.cri.removePodSandbox({ podSandboxId: sandboxId });
    }
  });
});

describe("the Node's status.images", () => {
  let t: ClientTestServer;
  beforeAll(async () => {
    t = await startClientTestServer();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('orders by size, caps the count and the names per image', () => {
    const image = (id: string, size: number, tags: string[], digests: string[] = []) => ({ id, size: BigInt(size), repoTags: tags, repoDigests: digests, uid: null, username: '', spec: null, pinned: false, imageSource: '' });
    const images = [image('s', 10, ['small:1']), image('b', 1000, ['big:1', 'big:2'], ['big@sha256:1']), image('m', 500, ['m:1']), image('none', 5000, [])];
    expect(nodeStatusImages(images, 2)).toEqual([
      { names: ['big@sha256:1', 'big:1', 'big:2'], sizeBytes: 1000 },
      { names: ['m:1'], sizeBytes: 500 },
    ]);
    expect(nodeStatusImages(images, -1)).toHaveLength(3);
    expect(nodeStatusImages([image('x', 1, ['1', '2', '3', '4', '5', '6'])], -1)[0]!.names).toHaveLength(5);
  });

  it('startNodeStatus writes the runtime images into the Node', async () => {
    const reader = nodeImagesReader({ cri: containerd.cri, maxImages: 50 });
    const h = startNodeStatus({
      client: t.client,
      options: { ...nodeStatusDefaults, hostnameOverride: 'images-node', rootDir: containerd.dir },
      runtime: criRuntimeInfo(containerd.cri),
      version: '0.9.0',
      statusCheckIntervalMs: 50,
      images: () => reader.read(),
    });
    try {
      let images: { names?: string[]; sizeBytes?: number }[] | undefined;
      for (let i = 0; i < 300 && !images?.length; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const node = await t.client.get(builtin.nodes, 'images-node').catch(() => undefined);
        images = node?.status?.images as typeof images;
      }
      const names = (images ?? []).flatMap((i) => i.names ?? []);
      expect(names).toContain(BUSYBOX_IMAGE);
      expect(names).toContain(PAUSE_IMAGE);
      const sizes = (images ?? []).map((i) => i.sizeBytes ?? 0);
      expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    } finally {
      await h.stop();
    }
  });
});
