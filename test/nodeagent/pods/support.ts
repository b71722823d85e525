import { share, type Subscription } from 'rxjs';
import type { Pod } from '../../../src/api/index.js';
import { builtin, InformerFactory } from '../../../src/client/index.js';
import { configuredSources, mirrorPods, nodePodsInformer, podSources, SourcesReadiness, startPodWorkers, type PodWorkersHandle, type PodWorkersOptions } from '../../../src/nodeagent/index.js';
import type { Client } from '../../../src/client/index.js';

/** What the tests need of the API server: a client with admin rights. */
export interface ApiServer {
  readonly client: Client;
}
import type { RunningContainerd } from '../../support/containerd.js';

export const NODE = 'pods-node';
export const HOST_IP = '192.0.2.10';

/** Polls until `check` gives a value; fails naming `what` after a generous guard (not a timing assertion). */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, guardMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > guardMs) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A real agent's pod half: the API source (its own informer) feeding a fresh set of workers. */
export class Agent {
  readonly informers: InformerFactory;
  readonly workers: PodWorkersHandle;
  /** Every version of every pod of this node the API server showed (statuses the workers wrote included). */
  readonly seen: Pod[] = [];
  readonly errors: unknown[] = [];
  readonly #subscription: Subscription;

  /** `podManifestPath`: static pods from that directory too, with their mirror pods. */
  constructor(server: ApiServer, containerd: RunningContainerd, options: Partial<PodWorkersOptions> & { podManifestPath?: string } = {}) {
    this.informers = new InformerFactory(server.client);
    const sourceOptions = { nodeName: NODE, informers: this.informers, podManifestPath: options.podManifestPath, fileCheckFrequencyMs: 500 };
    const readiness = new SourcesReadiness(configuredSources(sourceOptions));
    const updates$ = podSources({ ...sourceOptions, readiness }).pipe(share());
    this.#subscription = nodePodsInformer(this.informers, NODE).events$.subscribe((event) => this.seen.push(event.object));
    if (options.podManifestPath) this.#subscription.add(mirrorPods({ client: server.client, informers: this.informers, nodeName: NODE, updates: updates$, readiness }).subscribe());
    this.workers = startPodWorkers({
      cri: containerd.cri,
      client: server.client,
      updates$,
      readiness,
      nodeName: NODE,
      hostIP: HOST_IP,
      rootDir: containerd.dir,
      podLogsDir: containerd.logRoot,
      clusterDNS: ['10.96.0.10'],
      clusterDomain: 'cluster.local',
      onError: (uid, error) => {
        this.errors.push(error);
        if (process.env['SVC_TEST_DEBUG']) process.stderr.write(`sync ${uid}: ${String(error)}\n`);
      },
      ...options,
    });
  }

  stop(): void {
    this.workers.stop();
    this.#subscription.unsubscribe();
    this.informers.stop();
  }
}

export const podOf = (name: string, containers: Pod['spec']['containers'], spec: Partial<Pod['spec']> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: NODE, containers, ...spec },
});

export const BUSYBOX = 'svc.local/busybox:latest';

export async function createPod(server: ApiServer, pod: Pod): Promise<Pod> {
  return server.client.create(builtin.pods, pod, { namespace: 'default' });
}

export async function getPod(server: ApiServer, name: string): Promise<Pod | undefined> {
  try {
    return await server.client.get(builtin.pods, name, { namespace: 'default' });
  } catch {
    return undefined;
  }
}

type AnyStatus = Record<string, unknown> & { name: string; restartCount: number; ready: boolean; state: Record<string, Record<string, unknown> | undefined>; lastState?: Record<string, Record<string, unknown> | undefined> };
export const containerStatusOf = (pod: Pod | undefined, name: string, init = false): AnyStatus | undefined =>
  ((init ? pod?.status?.initContainerStatuses : pod?.status?.containerStatuses) as AnyStatus[] | undefined)?.find((s) => s.name === name);
