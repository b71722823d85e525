/**
 * A real svc-apiserver (memory store, listening) and a client for scheduler tests, with builders
 * of Nodes and Pods and a helper that runs a scheduler until the test ends.
 */
import type { Subscription } from 'rxjs';
import type { Node, Pod } from '../../../src/api/index.js';
import { builtin, Client, InformerFactory } from '../../../src/client/index.js';
import { scheduler, type ScheduleResult, type SchedulerOptions, type SchedulerState } from '../../../controllers/scheduler/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { WAIT_MS } from '../../support/wait.js';

/** Resolves when `predicate` (sync or async) holds, polling; fails with `what` after `guardMs`. */
export async function until(predicate: () => boolean | Promise<boolean>, what: string, guardMs = WAIT_MS): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > guardMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface SchedulerTestBed {
  readonly s: TestServer;
  readonly client: Client;
  newClient(): Client;
  /** Starts a scheduler; it stops when the bed closes. */
  start(options?: Partial<SchedulerOptions>): RunningScheduler;
  close(): Promise<void>;
}

export interface RunningScheduler {
  readonly results: ScheduleResult[];
  readonly state: SchedulerState;
  readonly subscription: Subscription;
  /** The scheduler's informers: a test waits for their caches to hold its writes (test/support/cache-holds.ts). */
  readonly informers: InformerFactory;
}

export async function startBed(): Promise<SchedulerTestBed> {
  const s = await startTestServer('memory', { listen: true });
  const clients: Client[] = [];
  const subscriptions: Subscription[] = [];
  const factories: InformerFactory[] = [];
  const newClient = () => {
    const c = new Client({ server: s.url!, token: TOKEN });
    clients.push(c);
    return c;
  };
  const client = newClient();
  return {
    s,
    client,
    newClient,
    start(options = {}) {
      const results: ScheduleResult[] = [];
      let state: SchedulerState | undefined;
      const schedulerClient = options.client ?? newClient();
      // Made here unless given (then the scheduler leaves it running): the bed stops it.
      const informers = options.informers ?? new InformerFactory(schedulerClient);
      if (!options.informers) factories.push(informers);
      const subscription = scheduler(
        { bucket: false, queue: { initialBackoffMs: 20, maxBackoffMs: 100 }, ...options, client: schedulerClient, informers },
        (st) => (state = st),
      ).subscribe({ next: (r) => results.push(r) });
      subscriptions.push(subscription);
      return { results, state: state!, subscription, informers };
    },
    async close() {
      for (const sub of subscriptions) sub.unsubscribe();
      for (const factory of factories) factory.stop();
      await Promise.all(clients.map((c) => c.destroy()));
      await s.close();
    },
  };
}

export interface NodeInit {
  cpu?: string;
  memory?: string;
  pods?: string;
  extra?: Record<string, string>;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
  unschedulable?: boolean;
  ready?: 'True' | 'False' | 'Unknown' | null;
}

export function node(name: string, init: NodeInit = {}): Node {
  const ready = init.ready === undefined ? 'True' : init.ready;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(init.labels ?? {}) } },
    spec: { ...(init.taints ? { taints: init.taints } : {}), ...(init.unschedulable ? { unschedulable: true } : {}) },
    status: {
      allocatable: { cpu: init.cpu ?? '4', memory: init.memory ?? '8Gi', pods: init.pods ?? '110', 'ephemeral-storage': '100Gi', ...(init.extra ?? {}) },
      conditions: ready === null ? [] : [{ type: 'Ready', status: ready, reason: 'Test' }],
    },
  };
}

export interface PodInit {
  cpu?: string;
  memory?: string;
  requests?: Record<string, string>;
  priority?: number;
  nodeSelector?: Record<string, string>;
  affinity?: Record<string, unknown>;
  tolerations?: NonNullable<Pod['spec']['tolerations']>;
  hostPort?: number;
  hostIP?: string;
  protocol?: 'TCP' | 'UDP';
  schedulerName?: string;
  nodeName?: string;
  namespace?: string;
}

export function pod(name: string, init: PodInit = {}): Pod {
  const requests = { ...(init.cpu ? { cpu: init.cpu } : {}), ...(init.memory ? { memory: init.memory } : {}), ...(init.requests ?? {}) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: init.namespace ?? 'default' },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'busybox',
          ...(Object.keys(requests).length > 0 ? { resources: { requests } } : {}),
          ...(init.hostPort ? { ports: [{ containerPort: 80, hostPort: init.hostPort, ...(init.hostIP ? { hostIP: init.hostIP } : {}), ...(init.protocol ? { protocol: init.protocol } : {}) }] } : {}),
        },
      ],
      ...(init.priority !== undefined ? { priority: init.priority } : {}),
      ...(init.nodeSelector ? { nodeSelector: init.nodeSelector } : {}),
      ...(init.affinity ? { affinity: init.affinity } : {}),
      ...(init.tolerations ? { tolerations: init.tolerations } : {}),
      ...(init.schedulerName ? { schedulerName: init.schedulerName } : {}),
      ...(init.nodeName ? { nodeName: init.nodeName } : {}),
    },
  };
}

export async function createNodes(client: Client, ...nodes: Node[]): Promise<void> {
  for (const n of nodes) await client.create(builtin.nodes, n);
}

export async function createPods(client: Client, ...pods: Pod[]): Promise<void> {
  await Promise.all(pods.map((p) => client.create(builtin.pods, p)));
}

/** Where the pod is bound ('' while it is not). */
export async function nodeOf(client: Client, name: string, namespace = 'default'): Promise<string> {
  return (await client.get(builtin.pods, name, { namespace })).spec.nodeName ?? '';
}

/** Polls until the pod is bound; returns its node. */
export async function boundNode(client: Client, name: string, namespace = 'default', guardMs = WAIT_MS): Promise<string> {
  const start = Date.now();
  for (;;) {
    const at = await nodeOf(client, name, namespace);
    if (at) return at;
    if (Date.now() - start > guardMs) throw new Error(`pod ${namespace}/${name} was never bound`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls until the pod's PodScheduled condition is False; returns it. */
export async function unschedulableCondition(client: Client, name: string, namespace = 'default', guardMs = WAIT_MS) {
  const start = Date.now();
  for (;;) {
    const p = await client.get(builtin.pods, name, { namespace });
    const c = p.status?.conditions?.find((x) => x.type === 'PodScheduled');
    if (c?.status === 'False') return c;
    if (Date.now() - start > guardMs) throw new Error(`pod ${namespace}/${name} never became unschedulable`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
