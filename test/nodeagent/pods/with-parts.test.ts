/**
 * The pod workers with the agent's other parts wired in, against a real containerd and API
 * server: env and volumes from a ConfigMap, the image manager's waiting reasons, liveness and
 * readiness probes, and a preStop hook on graceful deletion.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { ImageManager, POD_UID_LABEL, ProbeManager } from '../../../src/nodeagent/index.js';
import { startVolumesApiServer, type VolumesApiServer } from '../volumes/api-server.js';
import { netnsPathOf, startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { Agent, BUSYBOX, containerStatusOf, createPod, eventually, getPod, podOf } from './support.js';

let containerd: RunningContainerd;
let server: VolumesApiServer;
const agents: Agent[] = [];
const probeManagers: ProbeManager[] = [];
const ourNetns = new Set<string>();

beforeAll(async () => {
  containerd = await startContainerd();
  // A server that signs service-account tokens: admission gives every pod a projected token volume.
  server = await startVolumesApiServer();
  // What the controller manager's root CA publisher keeps in every namespace; the token volume projects it.
  await server.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'test CA' } });
}, 120_000);

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.stop();
  for (const probes of probeManagers.splice(0)) probes.close();
  for (const sandbox of (await containerd.cri.listPodSandbox()).items) {
    const netns = netnsPathOf((await containerd.cri.podSandboxStatus({ podSandboxId: sandbox.id, verbose: true })).info);
    if (netns) ourNetns.add(netns);
  }
});

afterAll(async () => {
  await server?.close();
  await containerd?.stop();
  expect(containerd.leftovers()).toMatchObject({ shims: [], mounts: [], containerdRunning: false, bridgePresent: false });
  expect([...ourNetns].filter((path) => existsSync(path))).toEqual([]);
}, 120_000);

const agent = (options: ConstructorParameters<typeof Agent>[2] = {}) => {
  const started = new Agent(server, containerd, options);
  agents.push(started);
  return started;
};
const withProbes = () => {
  const probes = new ProbeManager({ cri: containerd.cri });
  probeManagers.push(probes);
  return probes;
};
const runningContainer = async (uid: string, name: string) =>
  (await containerd.cri.listContainers({ filter: { labelSelector: { [POD_UID_LABEL]: uid }, state: { state: 'CONTAINER_RUNNING' } } })).containers.find((c) => c.metadata?.name === name);
const exec = async (id: string, cmd: string[]) => Buffer.from((await containerd.cri.execSync({ containerId: id, cmd, timeout: 10 })).stdout).toString();

describe('env and volumes', () => {
  it('a ConfigMap reaches the container as env and as files with the volume mode', async () => {
    agent();
    await server.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { greeting: 'hello', 'app.conf': 'x=1' } });
    const created = await createPod(
      server,
      podOf(
        'configured',
        [
          {
            name: 'main',
            image: BUSYBOX,
            command: ['sleep', '3600'],
            env: [
              { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'settings', key: 'greeting' } } },
              { name: 'MESSAGE', value: '$(GREETING) world' },
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ],
            volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }],
          },
        ],
        { volumes: [{ name: 'cfg', configMap: { name: 'settings', defaultMode: 0o600 } }] },
      ),
    );
    await eventually('Running', async () => (await getPod(server, 'configured'))?.status?.phase === 'Running');
    const main = (await runningContainer(created.metadata.uid!, 'main'))!;
    expect(await exec(main.id, ['sh', '-c', 'echo "$GREETING|$MESSAGE|$POD_NAME"'])).toBe('hello|hello world|configured\n');
    expect(await exec(main.id, ['cat', '/cfg/app.conf'])).toBe('x=1');
    expect(await exec(main.id, ['stat', '-L', '-c', '%a', '/cfg/greeting'])).toBe('600\n');
  });

  it('a missing ConfigMap leaves the container waiting with CreateContainerConfigError; creating it lets the pod run', async () => {
    agent();
    await createPod(
      server,
      podOf('needs-config', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'], env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'later', key: 'x' } } }] }]),
    );
    const waiting = await eventually('CreateContainerConfigError', async () => {
      const pod = await getPod(server, 'needs-config');
      return containerStatusOf(pod, 'main')?.state.waiting?.['reason'] === 'CreateContainerConfigError' ? pod : undefined;
    });
    expect(String(containerStatusOf(waiting, 'main')?.state.waiting?.['message'])).toContain('later');
    expect(waiting.status?.phase).toBe('Pending');
    await server.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later', namespace: 'default' }, data: { x: '1' } });
    await eventually('Running once the ConfigMap exists', async () => (await getPod(server, 'needs-config'))?.status?.phase === 'Running');
  });
});

describe('images', () => {
  it("an image no registry serves: the image manager's reason is the container's waiting reason", async () => {
    const images = new ImageManager({ cri: containerd.cri, serializeImagePulls: true, registryQps: 0, registryBurst: 0 });
    agent({ images });
    await createPod(server, podOf('no-image', [{ name: 'main', image: 'svc.local/not-there:1', imagePullPolicy: 'IfNotPresent' }]));
    const pod = await eventually('ErrImagePull or ImagePullBackOff', async () => {
      const p = await getPod(server, 'no-image');
      const reason = containerStatusOf(p, 'main')?.state.waiting?.['reason'];
      return reason === 'ErrImagePull' || reason === 'ImagePullBackOff' ? p : undefined;
    }, 120_000);
    expect(pod.status?.phase).toBe('Pending');
  });
});

describe('probes', () => {
  it('a failing liveness probe kills the container and it is restarted', async () => {
    agent({ probes: withProbes(), backoff: { initialMs: 500, maxMs: 1000 } });
    await createPod(
      server,
      podOf('unhealthy', [
        {
          name: 'main',
          image: BUSYBOX,
          command: ['sh', '-c', 'touch /tmp/healthy; sleep 2; rm /tmp/healthy; sleep 3600'],
          livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 1 },
        },
      ], { terminationGracePeriodSeconds: 1 }),
    );
    const restarted = await eventually('a restart after the liveness failure', async () => {
      const pod = await getPod(server, 'unhealthy');
      return (containerStatusOf(pod, 'main')?.restartCount ?? 0) >= 1 ? pod : undefined;
    });
    expect(containerStatusOf(restarted, 'main')?.lastState?.terminated).toBeDefined();
  });

  it('readiness flips the Ready condition with the probe', async () => {
    agent({ probes: withProbes() });
    const created = await createPod(
      server,
      podOf('readiness', [
        { name: 'main', image: BUSYBOX, command: ['sleep', '3600'], readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 } },
      ]),
    );
    const notReady = await eventually('Running but not Ready', async () => {
      const pod = await getPod(server, 'readiness');
      return pod?.status?.phase === 'Running' ? pod : undefined;
    });
    expect(notReady.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    expect(containerStatusOf(notReady, 'main')?.ready).toBe(false);
    const main = (await runningContainer(created.metadata.uid!, 'main'))!;
    await exec(main.id, ['touch', '/tmp/ready']);
    await eventually('Ready', async () => (await getPod(server, 'readiness'))?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True');
    await exec(main.id, ['rm', '/tmp/ready']);
    await eventually('not Ready again', async () => (await getPod(server, 'readiness'))?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False');
  });
});

describe('graceful deletion with a preStop hook', () => {
  it('runs the hook, then SIGTERM, then the pod is gone', async () => {
    agent();
    const script = "trap 'echo got-term; exit 0' TERM; while true; do sleep 1; done";
    const created = await createPod(
      server,
      podOf(
        'hooked',
        [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', script], lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop-ran > /proc/1/fd/1'] } } } }],
        { terminationGracePeriodSeconds: 15 },
      ),
    );
    const uid = created.metadata.uid!;
    await eventually('Running', async () => (await getPod(server, 'hooked'))?.status?.phase === 'Running');
    await server.client.delete(builtin.pods, 'hooked', { namespace: 'default' });
    await eventually('the pod gone', async () => ((await getPod(server, 'hooked')) === undefined ? true : undefined));
    const log = readFileSync(join(containerd.logRoot, `default_hooked_${uid}`, 'main', '0.log'), 'utf8');
    expect(log).toMatch(/prestop-ran[\s\S]*got-term/);
  });
});
