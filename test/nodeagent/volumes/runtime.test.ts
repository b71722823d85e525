/**
 * The env and mounts this folder computes, handed to a real containerd: a busybox container reads
 * its ConfigMap volume, a subPath file, its downward-API namespace and its env, and cannot write
 * to the read-only API data. Proves the shapes are right for the runtime, not just for us.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { BUSYBOX_IMAGE, podObjectReader, resolveEnv, setUpPodVolumes, shareRootDir, tearDownPodVolumes, type Input, type PodSandboxConfig } from '../../../src/nodeagent/index.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { scratchDir } from '../../support/scratch.js';
import { startVolumesApiServer, type VolumesApiServer } from './api-server.js';

let api: VolumesApiServer;
let containerd: RunningContainerd;
const root = scratchDir('vol-runtime-');
let podUid = '';
let rootShared = false;

beforeAll(async () => {
  [api, containerd] = await Promise.all([startVolumesApiServer(), startContainerd()]);
  await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' }, data: { 'app.conf': 'port=8080', GREETING: 'hello' } });
}, 120_000);

afterAll(async () => {
  await containerd?.stop();
  if (podUid) await tearDownPodVolumes(root, podUid);
  if (rootShared) execFileSync('umount', [root]);
  await api?.close();
});

describe('a busybox container with the env and mounts of its pod', () => {
  it('sees the ConfigMap file, the subPath file, the downward API and its env; API data is read-only; HostToContainer propagates', async () => {
    const container: Container = {
      name: 'main',
      image: BUSYBOX_IMAGE,
      env: [
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'MESSAGE', value: '$(GREETING) from $(POD_NAME)' },
      ],
      envFrom: [{ configMapRef: { name: 'app' } }],
      volumeMounts: [
        { name: 'cfg', mountPath: '/etc/app' },
        { name: 'cfg', mountPath: '/app.conf', subPath: 'app.conf' },
        { name: 'info', mountPath: '/etc/podinfo' },
        { name: 'scratch', mountPath: '/scratch' },
        { name: 'scratch', mountPath: '/propagated', mountPropagation: 'HostToContainer' },
      ],
    };
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'reader', namespace: 'default', uid: `runtime-${process.pid}` },
      spec: {
        nodeName: 'node-a',
        containers: [container],
        volumes: [
          { name: 'cfg', configMap: { name: 'app' } },
          { name: 'info', downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
          { name: 'scratch', emptyDir: {} },
        ],
      },
    };
    podUid = pod.metadata.uid!;
    // The runtime takes HostToContainer only from a shared (or slave) mount.
    rootShared = await shareRootDir(root);
    const objects = podObjectReader(api.client);
    const volumes = await setUpPodVolumes(pod, { rootDir: root, nodeName: 'node-a', objects });
    const envs = await resolveEnv({ pod, container, nodeName: 'node-a', hostIP: '127.0.0.1', podIP: undefined, podIPs: [], nodeAllocatable: {}, objects });

    const sandboxConfig: Input<PodSandboxConfig> = {
      metadata: { name: 'reader', uid: podUid, namespace: 'default', attempt: 0 },
      hostname: 'reader',
      logDirectory: join(containerd.logRoot, `default_reader_${podUid}`),
      linux: {},
    };
    const { podSandboxId } = await containerd.cri.runPodSandbox({ config: sandboxConfig });
    const { containerId } = await containerd.cri.createContainer({
      podSandboxId,
      sandboxConfig,
      config: {
        metadata: { name: 'main', attempt: 0 },
        image: { image: BUSYBOX_IMAGE },
        command: ['sleep', '3600'],
        envs,
        mounts: volumes.mounts(container, envs),
        logPath: 'main/0.log',
      },
    });
    await containerd.cri.startContainer({ containerId });

    const exec = async (script: string) => {
      const result = await containerd.cri.execSync({ containerId, cmd: ['sh', '-c', script], timeout: 30 });
      return { out: Buffer.from(result.stdout).toString(), code: result.exitCode };
    };
    expect(await exec('cat /etc/app/app.conf; echo; cat /app.conf; echo; cat /etc/podinfo/namespace; echo; echo "$MESSAGE"')).toEqual({
      out: 'port=8080\nport=8080\ndefault\nhello from reader\n',
      code: 0,
    });
    expect((await exec('touch /etc/app/new 2>/dev/null')).code).not.toBe(0);
    expect(await exec('echo written > /scratch/f && cat /scratch/f')).toEqual({ out: 'written\n', code: 0 });

    // HostToContainer: a mount made on the host inside the volume after the start reaches the container.
    const sub = join(volumes.podDir, 'volumes', 'svc.io~empty-dir', 'scratch', 'later');
    mkdirSync(sub);
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', sub]);
    writeFileSync(join(sub, 'hello'), 'propagated');
    expect(await exec('cat /propagated/later/hello')).toEqual({ out: 'propagated', code: 0 });
    expect((await exec('cat /scratch/later/hello 2>/dev/null')).code).not.toBe(0);

    await containerd.cri.stopPodSandbox({ podSandboxId });
    await containerd.cri.removePodSandbox({ podSandboxId });
  }, 120_000);
});
