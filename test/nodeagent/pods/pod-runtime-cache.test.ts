// The agent's pod cache (src/nodeagent/pods/pod-runtime-cache.ts): a pod's runtime read is kept
// until its runtime is said to change, and a read during which a change was said is not kept.
// Against svc's simulated runtime in process (a real CRI runtime: no containerd needed here).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { CriClient, InProcessTransport, SimulatedRuntime } from '../../../src/nodeagent/index.js';
import { cachedPodRuntime, podRuntimeChanged, readAndCachePodRuntime } from '../../../src/nodeagent/pods/pod-runtime-cache.js';
import type { PodEntry, WorkerContext } from '../../../src/nodeagent/pods/worker-context.js';

const UID = 'u-cache';

async function setUp() {
  const runtime = new SimulatedRuntime({ podNetwork: '10.78.0.0/24' });
  const cri = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(runtime) });
  const labels = { 'svc.io/pod.uid': UID, 'svc.io/container.name': 'app' };
  const { podSandboxId } = await cri.runPodSandbox({ config: { metadata: { name: 'p', namespace: 'default', uid: UID, attempt: 0 }, labels: { 'svc.io/pod.uid': UID } } });
  const { containerId } = await cri.createContainer({ podSandboxId, config: { metadata: { name: 'app', attempt: 0 }, image: { image: 'registry.example/app:1' }, labels } });
  await cri.startContainer({ containerId });
  // What a read needs of a worker's context: the runtime, the exited containers' statuses, the signal.
  const context = { cri, exited: new Map(), signal: new AbortController().signal } as unknown as WorkerContext;
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: UID }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } };
  const entry: PodEntry = { pod, state: 'syncing', removed: false, status: undefined, apiStatus: undefined, failures: 0 };
  return { cri, context, entry, containerId };
}

describe('the pod cache', () => {
  it('keeps a read until the pod runtime is said to change', async () => {
    const { cri, context, entry, containerId } = await setUp();
    expect(cachedPodRuntime(entry)).toBeUndefined();
    const read = await readAndCachePodRuntime(context, entry, UID);
    expect(read.containers.map((c) => c.state)).toEqual(['CONTAINER_RUNNING']);
    expect(cachedPodRuntime(entry)).toBe(read);
    expect(cachedPodRuntime(entry)).toBe(read);

    // The container exits; the relist (or the agent itself) says so: the read kept is stale.
    await cri.stopContainer({ containerId, timeout: 0 });
    podRuntimeChanged(entry);
    expect(cachedPodRuntime(entry)).toBeUndefined();
    const again = await readAndCachePodRuntime(context, entry, UID);
    expect(again.containers.map((c) => c.state)).toEqual(['CONTAINER_EXITED']);
    expect(cachedPodRuntime(entry)).toBe(again);
    cri.close();
  });

  it('does not keep a read during which a change was said (the relist saw one while it was in flight)', async () => {
    const { cri, context, entry } = await setUp();
    const reading = readAndCachePodRuntime(context, entry, UID);
    podRuntimeChanged(entry);
    const read = await reading;
    expect(read.containers).toHaveLength(1);
    expect(cachedPodRuntime(entry)).toBeUndefined();
    // The next read, with nothing said during it, is kept.
    const next = await readAndCachePodRuntime(context, entry, UID);
    expect(cachedPodRuntime(entry)).toBe(next);
    cri.close();
  });
});
