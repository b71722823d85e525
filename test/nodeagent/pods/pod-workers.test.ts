/**
 * The pod workers against a real containerd and a real API server: pods created with
 * spec.nodeName reach the workers through the real API source, run, restart, finish and are
 * deleted gracefully; a restarted worker set adopts what runs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { CONTAINER_HASH_ANNOTATION, CONTAINER_NAME_LABEL, nodeAgentEvents, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../../../src/nodeagent/index.js';
import { startVolumesApiServer, type VolumesApiServer } from '../volumes/api-server.js';
import { netnsPathOf, startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { Agent, BUSYBOX, containerStatusOf, createPod, eventually, getPod, HOST_IP, NODE, podOf } from './support.js';

let containerd: RunningContainerd;
let server: VolumesApiServer;
const agents: Agent[] = [];

beforeAll(async () => {
  containerd = await startContainerd();
  // A server that signs service-account tokens: admission gives every pod a projected token volume.
  server = await startVolumesApiServer();
  // What the controller manager's root CA publisher keeps in every namespace; the token volume projects it.
  await server.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'test CA' } });
}, 120_000);

/** Network namespaces of this suite's sandboxes (other suites' containerds may run beside it). */
const ourNetns = new Set<string>();

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.stop();
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

const containersOf = async (uid: string) => (await containerd.cri.listContainers({ filter: { labelSelector: { [POD_UID_LABEL]: uid } } })).containers;
const sandboxesOf = async (uid: string) => (await containerd.cri.listPodSandbox({ filter: { labelSelector: { [POD_UID_LABEL]: uid } } })).items;

function ipv4InCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string];
  const toInt = (a: string) => a.split('.').reduce((n, o) => (n << 8) + Number(o), 0) >>> 0;
  const mask = (~0 << (32 - Number(bits))) >>> 0;
  return ((toInt(ip) & mask) >>> 0) === ((toInt(base) & mask) >>> 0);
}

const httpd = { name: 'web', image: BUSYBOX, command: ['sh', '-c', 'mkdir -p /www && echo hello-from-pod > /www/index.html && exec httpd -f -p 8080 -h /www'] };

describe('a running pod', () => {
  it('becomes Running with every status field, its IP reachable from the host, the runtime labelled per the contract', async () => {
    const a = agent();
    const created = await createPod(server, podOf('web', [httpd]));
    const uid = created.metadata.uid!;
    const running = await eventually('the pod Running and Ready in the API server', async () => {
      const pod = await getPod(server, 'web');
      return pod?.status?.phase === 'Running' && pod.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? pod : undefined;
    });
    const status = running.status!;
    expect(ipv4InCidr(status.podIP!, containerd.podCidr)).toBe(true);
    expect(status.podIPs).toEqual([{ ip: status.podIP }]);
    expect(status.hostIP).toBe(HOST_IP);
    expect(status.hostIPs).toEqual([{ ip: HOST_IP }]);
    expect(status.qosClass).toBe('BestEffort');
    expect(Date.parse(status.startTime!)).not.toBeNaN();
    expect(Object.fromEntries(status.conditions!.map((c) => [c.type, c.status]))).toEqual({ PodScheduled: 'True', Initialized: 'True', ContainersReady: 'True', Ready: 'True' });
    const web = containerStatusOf(running, 'web')!;
    expect(web).toMatchObject({ name: 'web', image: BUSYBOX, ready: true, started: true, restartCount: 0 });
    expect(web.state.running?.['startedAt']).toBeDefined();
    expect(String(web['containerID'])).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(String(web['imageID'])).toMatch(/sha256:[0-9a-f]{64}/);

    const body = await eventually('an HTTP answer from the pod IP', async () => {
      try {
        return await (await fetch(`http://${status.podIP}:8080/index.html`, { signal: AbortSignal.timeout(2000) })).text();
      } catch {
        return undefined;
      }
    });
    expect(body).toBe('hello-from-pod\n');

    const [sandbox] = await sandboxesOf(uid);
    expect(sandbox?.labels).toMatchObject({ [POD_NAME_LABEL]: 'web', [POD_NAMESPACE_LABEL]: 'default', [POD_UID_LABEL]: uid });
    expect(sandbox?.metadata).toMatchObject({ name: 'web', namespace: 'default', uid, attempt: 0 });
    const [container] = await containersOf(uid);
    expect(container?.labels).toMatchObject({ [CONTAINER_NAME_LABEL]: 'web', [POD_UID_LABEL]: uid });
    expect(container?.annotations[CONTAINER_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
    const containerStatus = await containerd.cri.containerStatus({ containerId: container!.id });
    expect(containerStatus.status?.logPath).toBe(join(containerd.logRoot, `default_web_${uid}`, 'web', '0.log'));
    // The view the agent's server serves shows the same status.
    expect(a.workers.view.pods().find((p) => p.metadata.uid === uid)?.status?.podIP).toBe(status.podIP);
    // Cluster DNS went into the sandbox: the container's resolv.conf names it with the namespace's search path.
    const resolv = await containerd.cri.execSync({ containerId: container!.id, cmd: ['cat', '/etc/resolv.conf'], timeout: 10 });
    const text = Buffer.from(resolv.stdout).toString();
    expect(text).toContain('nameserver 10.96.0.10');
    expect(text).toContain('search default.svc.cluster.local svc.cluster.local cluster.local');
    expect(text).toContain('ndots:5');
  });
});

describe('restart policies', () => {
  it('Always: an exiting container is restarted with back-off — restartCount grows, CrashLoopBackOff while it waits', async () => {
    const a = agent({ backoff: { initialMs: 1500, maxMs: 6000 } });
    await createPod(server, podOf('crasher', [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', 'echo once; exit 2'] }]));
    const backingOff = await eventually('CrashLoopBackOff after the second exit', () => {
      const pod = a.seen.filter((p) => p.metadata.name === 'crasher').at(-1);
      const c = containerStatusOf(pod, 'c');
      return c?.state.waiting?.['reason'] === 'CrashLoopBackOff' ? pod : undefined;
    });
    const waiting = containerStatusOf(backingOff, 'c')!;
    expect(waiting.restartCount).toBeGreaterThanOrEqual(1);
    expect(waiting.lastState?.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
    expect(backingOff.status?.phase).toBe('Running');
    expect(backingOff.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    await eventually('restartCount reaching 3', async () => (containerStatusOf(await getPod(server, 'crasher'), 'c')?.restartCount ?? 0) >= 3);
    // Each instance is its own container with its own log file (<name>/<restartCount>.log).
    const uid = backingOff.metadata.uid!;
    const counts = (await containersOf(uid)).map((c) => c.metadata?.attempt).sort();
    expect(counts.slice(0, 3)).toEqual([0, 1, 2]);
    expect(existsSync(join(containerd.logRoot, `default_crasher_${uid}`, 'c', '1.log'))).toBe(true);
  });

  it('Never: a failing container is not restarted; the pod is Failed and its sandbox stopped', async () => {
    agent();
    const created = await createPod(server, podOf('fails-once', [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', 'exit 3'] }], { restartPolicy: 'Never' }));
    const failed = await eventually('phase Failed', async () => {
      const pod = await getPod(server, 'fails-once');
      return pod?.status?.phase === 'Failed' ? pod : undefined;
    });
    const c = containerStatusOf(failed, 'c')!;
    expect(c.restartCount).toBe(0);
    expect(c.state.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(failed.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    await eventually('the sandbox stopped', async () => (await sandboxesOf(created.metadata.uid!)).every((s) => s.state === 'SANDBOX_NOTREADY'));
    expect((await containersOf(created.metadata.uid!)).length).toBe(1);
  });

  it('Never and OnFailure: containers that exit 0 make the pod Succeeded', async () => {
    agent();
    await createPod(server, podOf('done-never', [{ name: 'c', image: BUSYBOX, command: ['true'] }], { restartPolicy: 'Never' }));
    await createPod(server, podOf('done-onfailure', [{ name: 'c', image: BUSYBOX, command: ['true'] }], { restartPolicy: 'OnFailure' }));
    for (const name of ['done-never', 'done-onfailure']) {
      const done = await eventually(`${name} Succeeded`, async () => {
        const pod = await getPod(server, name);
        return pod?.status?.phase === 'Succeeded' ? pod : undefined;
      });
      expect(containerStatusOf(done, 'c')).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    }
  });

  it('OnFailure: a failing container is restarted', async () => {
    agent({ backoff: { initialMs: 500, maxMs: 1000 } });
    await createPod(server, podOf('retry', [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', 'exit 1'] }], { restartPolicy: 'OnFailure' }));
    const pod = await eventually('a restart', async () => {
      const p = await getPod(server, 'retry');
      return (containerStatusOf(p, 'c')?.restartCount ?? 0) >= 1 ? p : undefined;
    });
    expect(pod.status?.phase).toBe('Running');
  });
});

describe('init containers', () => {
  it('run one at a time in order, each to a clean exit, before the containers', async () => {
    agent();
    const created = await createPod(
      server,
      podOf('inits', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }], {
        initContainers: [
          { name: 'first', image: BUSYBOX, command: ['sh', '-c', 'sleep 1; echo first'] },
          { name: 'second', image: BUSYBOX, command: ['sh', '-c', 'echo second'] },
        ],
      }),
    );
    const pending = await eventually('Pending while initializing', () => {
      const pod = agents[0]!.seen.find((p) => p.metadata.name === 'inits' && p.status?.phase === 'Pending' && containerStatusOf(p, 'main')?.state.waiting);
      return pod;
    });
    expect(containerStatusOf(pending, 'main')?.state.waiting?.['reason']).toBe('PodInitializing');
    const running = await eventually('Running', async () => {
      const pod = await getPod(server, 'inits');
      return pod?.status?.phase === 'Running' ? pod : undefined;
    });
    expect(running.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(containerStatusOf(running, 'first', true)?.state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(containerStatusOf(running, 'second', true)?.state.terminated).toMatchObject({ exitCode: 0 });
    const statuses = await Promise.all((await containersOf(created.metadata.uid!)).map(async (c) => (await containerd.cri.containerStatus({ containerId: c.id })).status!));
    const byName = new Map(statuses.map((s) => [s.metadata!.name, s]));
    expect(byName.get('second')!.createdAt).toBeGreaterThanOrEqual(byName.get('first')!.finishedAt);
    expect(byName.get('main')!.createdAt).toBeGreaterThanOrEqual(byName.get('second')!.finishedAt);
  });

  it('a failing init container under Never fails the pod and the containers never start', async () => {
    agent();
    const created = await createPod(
      server,
      podOf('bad-init', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }], {
        restartPolicy: 'Never',
        initContainers: [{ name: 'init', image: BUSYBOX, command: ['sh', '-c', 'exit 7'] }],
      }),
    );
    const failed = await eventually('Failed', async () => {
      const pod = await getPod(server, 'bad-init');
      return pod?.status?.phase === 'Failed' ? pod : undefined;
    });
    expect(containerStatusOf(failed, 'init', true)?.state.terminated).toMatchObject({ exitCode: 7 });
    expect(failed.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('False');
    expect((await containersOf(created.metadata.uid!)).map((c) => c.metadata?.name)).toEqual(['init']);
  });
});

describe('graceful deletion', () => {
  it('SIGTERM reaches the container, the grace period is honoured, then the pod object and its runtime state are gone', async () => {
    const a = agent();
    const script = "trap 'echo got-term; sleep 2; echo clean-exit; exit 0' TERM; echo up; while true; do sleep 1; done";
    const created = await createPod(server, podOf('graceful', [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', script] }], { terminationGracePeriodSeconds: 20 }));
    const uid = created.metadata.uid!;
    await eventually('Running', async () => (await getPod(server, 'graceful'))?.status?.phase === 'Running');
    await server.client.delete(builtin.pods, 'graceful', { namespace: 'default' });
    await eventually('the pod object gone for good', async () => ((await getPod(server, 'graceful')) === undefined ? true : undefined));
    expect(await containersOf(uid)).toEqual([]);
    expect(await sandboxesOf(uid)).toEqual([]);
    // The last status the workers wrote, before the DELETE: the container ended by its own trap (exit 0), not killed (137).
    const last = a.seen.filter((p) => p.metadata.uid === uid && containerStatusOf(p, 'main')?.state.terminated).at(-1);
    expect(containerStatusOf(last, 'main')?.state.terminated).toMatchObject({ exitCode: 0 });
    const log = readFileSync(join(containerd.logRoot, `default_graceful_${uid}`, 'main', '0.log'), 'utf8');
    expect(log).toMatch(/got-term[\s\S]*clean-exit/);
    expect(a.workers.state(uid)).toBeUndefined();
  });

  it('a container that ignores SIGTERM is killed when the grace period runs out', async () => {
    agent();
    const created = await createPod(server, podOf('stubborn', [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', "trap '' TERM; while true; do sleep 1; done"] }], { terminationGracePeriodSeconds: 1 }));
    await eventually('Running', async () => (await getPod(server, 'stubborn'))?.status?.phase === 'Running');
    await server.client.delete(builtin.pods, 'stubborn', { namespace: 'default' });
    await eventually('the pod gone', async () => ((await getPod(server, 'stubborn')) === undefined ? true : undefined));
    expect(await containersOf(created.metadata.uid!)).toEqual([]);
  });
});

describe('a restarted agent', () => {
  it('adopts the running containers: same IDs, nothing duplicated or killed; a pod deleted meanwhile is cleaned up', async () => {
    const first = agent();
    const keep = await createPod(server, podOf('adopted', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }]));
    const orphan = await createPod(server, podOf('orphaned', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }], { terminationGracePeriodSeconds: 0 }));
    for (const name of ['adopted', 'orphaned']) await eventually(`${name} Running`, async () => (await getPod(server, name))?.status?.phase === 'Running');
    const before = (await containersOf(keep.metadata.uid!)).map((c) => c.id);
    const sandboxesBefore = (await sandboxesOf(keep.metadata.uid!)).map((s) => s.id);
    first.stop();
    agents.splice(agents.indexOf(first), 1);
    // While no agent runs, one pod is deleted for good: its containers are the restarted agent's orphans.
    await server.client.delete(builtin.pods, 'orphaned', { namespace: 'default', gracePeriodSeconds: 0 });

    const second = agent();
    await eventually('the adopted pod in the new view', () => second.workers.view.pods().find((p) => p.metadata.name === 'adopted' && p.status?.phase === 'Running'));
    await eventually('the orphan removed', async () => ((await sandboxesOf(orphan.metadata.uid!)).length === 0 ? true : undefined));
    // A few relists and a sync later, the adopted pod is untouched.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const after = await containersOf(keep.metadata.uid!);
    expect(after.map((c) => c.id)).toEqual(before);
    expect(after.every((c) => c.state === 'CONTAINER_RUNNING')).toBe(true);
    expect((await sandboxesOf(keep.metadata.uid!)).map((s) => s.id)).toEqual(sandboxesBefore);
    expect(containerStatusOf(await getPod(server, 'adopted'), 'main')?.restartCount).toBe(0);
  });
});

describe('static pods', () => {
  it('run from the manifest directory, report their status on the mirror pod, and stop when the manifest goes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-manifests-'));
    await server.client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } }).catch(() => undefined);
    writeFileSync(join(dir, 'static.yaml'), `apiVersion: v1\nkind: Pod\nmetadata:\n  name: static\nspec:\n  terminationGracePeriodSeconds: 0\n  containers:\n  - name: main\n    image: ${BUSYBOX}\n    command: [sleep, '3600']\n`);
    agent({ podManifestPath: dir });
    const mirror = await eventually('the mirror pod Running', async () => {
      const pod = await getPod(server, `static-${NODE}`);
      return pod?.status?.phase === 'Running' ? pod : undefined;
    });
    expect(ipv4InCidr(mirror.status!.podIP!, containerd.podCidr)).toBe(true);
    expect(containerStatusOf(mirror, 'main')).toMatchObject({ ready: true, restartCount: 0 });
    // The static pod's UID is its own (the manifest hash), not the mirror's.
    const [sandbox] = (await containerd.cri.listPodSandbox({ filter: { labelSelector: { [POD_NAME_LABEL]: `static-${NODE}` } } })).items;
    expect(sandbox?.labels[POD_UID_LABEL]).not.toBe(mirror.metadata.uid);
    const uid = sandbox!.labels[POD_UID_LABEL]!;

    unlinkSync(join(dir, 'static.yaml'));
    await eventually('the static pod stopped and removed', async () => ((await sandboxesOf(uid)).length === 0 && (await containersOf(uid)).length === 0 ? true : undefined));
    await eventually('the mirror gone', async () => ((await getPod(server, `static-${NODE}`)) === undefined ? true : undefined));
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the periodic sync', () => {
  it('syncs each running pod again on its own, between the sync frequency and 1.5 times it after its last sync', async () => {
    const a = agent({ syncFrequencyMs: 1000 });
    const requeues: number[] = [];
    let uid = '';
    const subscription = a.workers.results$.subscribe((result) => {
      if (result.key === uid && result.type === 'requeueAfter') requeues.push(result.after);
    });
    try {
      const created = await createPod(server, podOf('resynced', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }]));
      uid = created.metadata.uid!;
      await eventually('Running', async () => (await getPod(server, 'resynced'))?.status?.phase === 'Running');
      // Nothing changes the pod from here on but its own status write or two: the syncs that keep
      // coming are the periodic ones, each asking for the next.
      requeues.splice(0);
      await eventually('five more syncs of the running pod', () => (requeues.length >= 5 ? true : undefined));
      for (const after of requeues) {
        expect(after).toBeGreaterThanOrEqual(1000);
        expect(after).toBeLessThan(1500);
      }
      // Spread at random, not on a common tick.
      expect(new Set(requeues).size).toBeGreaterThan(1);
    } finally {
      subscription.unsubscribe();
    }
  });
});

describe('status ownership and events', () => {
  it('a status someone else changed is written again (RECONCILE); events tell what the workers did', async () => {
    const events = nodeAgentEvents({ client: server.client, qps: 100, burst: 100, host: NODE });
    try {
      agent({ events });
      const created = await createPod(server, podOf('owned', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }]));
      await eventually('Running', async () => (await getPod(server, 'owned'))?.status?.phase === 'Running');
      // Someone overwrites the agent's fields.
      await server.client.transport.request({
        method: 'PATCH',
        path: '/api/v1/namespaces/default/pods/owned/status',
        contentType: 'application/merge-patch+json',
        body: { status: { phase: 'Pending', podIP: null, podIPs: null } },
      });
      const restored = await eventually('the agent writing its status again', async () => {
        const pod = await getPod(server, 'owned');
        return pod?.status?.phase === 'Running' && pod.status.podIP ? pod : undefined;
      });
      expect(ipv4InCidr(restored.status!.podIP!, containerd.podCidr)).toBe(true);
      const reasons = await eventually('Created and Started events for the pod', async () => {
        const list = await server.client.list(builtin.coreEvents, { namespace: 'default' });
        const mine = list.items.filter((e) => (e as { involvedObject?: { uid?: string } }).involvedObject?.uid === created.metadata.uid).map((e) => (e as { reason?: string }).reason);
        return mine.includes('Created') && mine.includes('Started') ? mine : undefined;
      });
      expect(reasons).toContain('Started');
    } finally {
      events.stop();
    }
  });
});
