// One pod's syncs (src/nodeagent/pods/sync-pod.ts) on svc's simulated runtime in process, the
// calls each makes recorded: the first runs the pod, a periodic one that finds nothing changed
// makes no runtime call and keeps its status, a change the relist reports is read and acted on.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { CrashLoopBackoff, CriClient, InProcessTransport, noApiObjects, podVolumesAccess, SimulatedRuntime, type CriService } from '../../../src/nodeagent/index.js';
import { podRuntimeChanged } from '../../../src/nodeagent/pods/pod-runtime-cache.js';
import { syncPod } from '../../../src/nodeagent/pods/sync-pod.js';
import type { PodEntry, WorkerContext } from '../../../src/nodeagent/pods/worker-context.js';

/** A simulated runtime that keeps every call made of it, with its request. */
class RecordingRuntime extends SimulatedRuntime {
  readonly calls: { method: string; request: Record<string, unknown> }[] = [];

  override async handle(service: CriService, method: string, request: object): Promise<unknown> {
    this.calls.push({ method, request: request as Record<string, unknown> });
    return super.handle(service, method, request);
  }
}

function setUp(containers: Pod['spec']['containers']) {
  const runtime = new RecordingRuntime({ podNetwork: '10.79.0.0/24' });
  const cri = new CriClient({ endpoint: 'svc-simulated://in-process', transport: new InProcessTransport(runtime) });
  const context: WorkerContext = {
    cri,
    signal: new AbortController().signal,
    sandbox: { podLogsDir: '/var/log/pods', clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf: '' },
    container: { nodeMemoryBytes: 8 * 2 ** 30 },
    hostIPs: ['10.250.0.9'],
    runtimeName: 'svc-simulated',
    backoff: new CrashLoopBackoff(),
    exited: new Map(),
    statusWriter: undefined,
    volumes: podVolumesAccess({ rootDir: '/var/lib/svc-test-unwritten', nodeName: 'n', hostIP: '10.250.0.9', objects: noApiObjects, nodeAllocatable: {}, memoryBacked: false, writeFiles: false }),
    images: undefined,
    probes: undefined,
    events: undefined,
    resources: undefined,
  };
  const pod: Pod = Object.freeze({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u-sync' },
    spec: { nodeName: 'n', enableServiceLinks: false, containers },
  });
  const entry: PodEntry = { pod, state: 'syncing', removed: false, status: undefined, apiStatus: undefined, failures: 0 };
  const methods = (from: number) => runtime.calls.slice(from).map((c) => c.method);
  return { runtime, cri, context, entry, methods };
}

describe('a pod sync', () => {
  it('runs the pod once, then makes no runtime call and keeps its status while nothing changes', async () => {
    const { runtime, cri, context, entry, methods } = setUp([{ name: 'app', image: 'registry.example/app:1' }]);
    await syncPod(context, entry);
    expect(entry.status?.phase).toBe('Running');
    // The container is created with the config its sandbox was run with.
    const run = runtime.calls.find((c) => c.method === 'RunPodSandbox')!.request['config'];
    const create = runtime.calls.find((c) => c.method === 'CreateContainer')!.request['sandboxConfig'];
    expect(create).toEqual(run);

    const status = entry.status;
    for (let i = 0; i < 3; i += 1) {
      const from = runtime.calls.length;
      await syncPod(context, entry);
      expect(methods(from)).toEqual([]);
      expect(entry.status).toBe(status);
    }
    cri.close();
  });

  it('reads the runtime again once a change is reported, and acts on it', async () => {
    const { runtime, cri, context, entry, methods } = setUp([{ name: 'app', image: 'registry.example/app:1' }]);
    await syncPod(context, entry);
    const [container] = (await cri.listContainers()).containers;
    // The container ends behind the agent's back; the relist reports it.
    await cri.stopContainer({ containerId: container!.id, timeout: 0 });
    podRuntimeChanged(entry);
    const from = runtime.calls.length;
    await syncPod(context, entry);
    expect(methods(from)).toContain('ListContainers');
    expect(methods(from)).toContain('StartContainer');
    const statuses = entry.status?.containerStatuses as { restartCount: number; state: { running?: object } }[];
    expect(statuses[0]).toMatchObject({ restartCount: 1, state: { running: expect.any(Object) } });
    cri.close();
  });

  it('computes the status again at every sync of a pod with a probe (its result may move with no sync of its own)', async () => {
    const { cri, context, entry, methods, runtime } = setUp([{ name: 'app', image: 'registry.example/app:1', readinessProbe: { exec: { command: ['true'] } } }]);
    await syncPod(context, entry);
    const first = entry.status;
    const from = runtime.calls.length;
    await syncPod(context, entry);
    // Still no runtime call, but a status of its own.
    expect(methods(from)).toEqual([]);
    expect(entry.status).not.toBe(first);
    expect(entry.status).toEqual(first);
    cri.close();
  });
});
