import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { podObjectReader, podVolumesHook } from '../../../src/nodeagent/index.js';
import { scratchDir } from '../../support/scratch.js';
import { startVolumesApiServer, type VolumesApiServer } from './api-server.js';

let api: VolumesApiServer;
beforeAll(async () => {
  api = await startVolumesApiServer();
  await api.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, data: { DIR: 'from-cfg' } });
});
afterAll(async () => api?.close());

describe('podVolumesHook: the pod workers’ shape', () => {
  it('resolves env against the node, sets up volumes, expands subPathExpr with the env, tears down', async () => {
    const root = scratchDir('vol-hook-');
    let allocatable = { memory: '1Gi' };
    const hook = podVolumesHook({ rootDir: root, nodeName: 'node-a', hostIP: '10.0.0.9', nodeAllocatable: () => allocatable, objects: podObjectReader(api.client) });
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'w', namespace: 'default', uid: `hook-${process.pid}` },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox',
            envFrom: [{ configMapRef: { name: 'cfg' } }],
            env: [
              { name: 'HOST', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
              { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
            ],
            volumeMounts: [{ name: 'scratch', mountPath: '/work', subPathExpr: '$(DIR)/$(HOST)' }],
          },
        ],
        volumes: [{ name: 'scratch', emptyDir: {} }],
      },
    };
    const container = pod.spec.containers[0]!;
    const volumes = await hook.setUp(pod);
    expect(await hook.resolveEnv(pod, container, '10.1.0.2', ['10.1.0.2'])).toEqual([
      { key: 'DIR', value: 'from-cfg' },
      { key: 'HOST', value: '10.0.0.9' },
      { key: 'MEM', value: '1024' },
    ]);
    const scratch = join(root, 'pods', pod.metadata.uid!, 'volumes', 'svc.io~empty-dir', 'scratch');
    expect(volumes.mounts(container)[0]!.hostPath).toBe(join(scratch, 'from-cfg', '10.0.0.9'));

    // The allocatable is read on every call.
    allocatable = { memory: '2Gi' };
    expect((await hook.resolveEnv(pod, container, undefined, [])).find((e) => e.key === 'MEM')?.value).toBe('2048');

    await hook.tearDown(pod.metadata.uid!);
    expect(existsSync(join(root, 'pods', pod.metadata.uid!))).toBe(false);
  });
});
