import { share, type Subscription } from 'rxjs';
import { apiThrottle, PROTOBUF_CONTENT_TYPE } from '../../controllers/manager/index.js';
import { Client, InformerFactory, jsonCodec, loadProtobufCodec, type Codec } from '../client/index.js';
import {
  configuredSources,
  CriClient,
  criRuntimeInfo,
  mirrorPods,
  nodeName as nodeNameOf,
  podSources,
  SourcesReadiness,
  startNodeStatus,
  thisHost,
  type NodeStatusHandle,
  type PodUpdate,
} from '../nodeagent/index.js';
import type { CommandIO } from './command.js';
import type { NodeAgentStartup } from './nodeagent-command.js';
import { effectiveRates } from './nodeagent-validate.js';

/** A node agent running in this process (the `nodeagent` daemon, or the node of `svc up`). */
export interface RunningNodeAgent {
  readonly nodeName: string;
  /** Stops the agent: its loops, its server and its clients. Running containers are left running. */
  close(): Promise<void>;
}

export interface NodeAgentRunOptions {
  /** Replaces the client `--svcconfig` would make (svc up passes its own). */
  readonly client?: Client;
}

/** How long to wait for the container runtime to answer before giving up. */
const RUNTIME_WAIT_MS = 30_000;

async function connectRuntime(values: NodeAgentStartup['options']['values']): Promise<CriClient> {
  const cri = new CriClient({
    endpoint: values.containerRuntimeEndpoint,
    ...(values.imageServiceEndpoint ? { imageEndpoint: values.imageServiceEndpoint } : {}),
    timeoutMs: values.runtimeRequestTimeout,
  });
  const deadline = Date.now() + RUNTIME_WAIT_MS;
  for (;;) {
    try {
      await cri.version({ version: 'v1' }, { timeoutMs: 2_000 });
      return cri;
    } catch (error) {
      if (Date.now() > deadline) {
        cri.close();
        throw new Error(`the container runtime at ${values.containerRuntimeEndpoint} does not answer: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function apiClient(values: NodeAgentStartup['options']['values'], userAgent: string, rates: { qps: number; burst: number } | undefined): Promise<Client> {
  const codec: Codec = values.svcApiContentType === PROTOBUF_CONTENT_TYPE ? await loadProtobufCodec() : jsonCodec;
  return Client.fromSvcconfig(values.svcconfig!, { userAgent, codec, ...(rates ? { throttle: apiThrottle(rates) } : {}) });
}

/**
 * Starts the node agent from checked options: the runtime connection, then (with `--svcconfig`)
 * the API clients, the node's registration and heartbeats, the pod sources and mirror pods.
 */
export async function startNodeAgent(startup: NodeAgentStartup, io: CommandIO, options: NodeAgentRunOptions = {}): Promise<RunningNodeAgent> {
  const values = startup.options.values;
  const rates = effectiveRates(values);
  const cri = await connectRuntime(values);
  const name = nodeNameOf(values, thisHost);
  const apiMode = values.svcconfig !== undefined || options.client !== undefined;
  // Pods and mirrors share the --svc-api-qps bucket; heartbeats and events are outside it (the spec's rule).
  const client = apiMode ? (options.client ?? (await apiClient(values, 'nodeagent', { qps: rates.apiQps, burst: rates.apiBurst }))) : undefined;
  const statusClient = apiMode ? (options.client ?? (await apiClient(values, 'nodeagent/status', undefined))) : undefined;
  const informers = client ? new InformerFactory(client) : undefined;
  const sourceOptions = {
    nodeName: name,
    informers,
    podManifestPath: values.podManifestPath,
    fileCheckFrequencyMs: values.fileCheckFrequency,
    manifestUrl: values.manifestUrl,
    manifestUrlHeaders: values.manifestUrlHeader,
    httpCheckFrequencyMs: values.httpCheckFrequency,
    onProblem: (problem: { origin: string; error: Error }) => io.err(`nodeagent: pod source skipped ${problem.origin}: ${problem.error.message}`),
  };
  const readiness = new SourcesReadiness(configuredSources(sourceOptions));
  const updates$ = podSources({ ...sourceOptions, readiness }).pipe(share());
  const subscriptions: Subscription[] = [];
  let nodeStatus: NodeStatusHandle | undefined;
  if (client && informers && statusClient) {
    nodeStatus = startNodeStatus({
      client: statusClient,
      options: { ...values, eventQps: rates.eventQps, eventBurst: rates.eventBurst },
      runtime: criRuntimeInfo(cri),
      version: startup.version,
      onError: (what, error) => io.err(`nodeagent: ${what}: ${(error as Error).message}`),
    });
    subscriptions.push(mirrorPods({ client, informers, nodeName: name, updates: updates$, readiness }).subscribe());
  }
  subscriptions.push(updates$.subscribe({ next: (_update: PodUpdate) => undefined, error: (error: unknown) => io.err(`nodeagent: pod sources stopped: ${(error as Error).message}`) }));

  return {
    nodeName: name,
    async close() {
      for (const subscription of subscriptions) subscription.unsubscribe();
      await nodeStatus?.stop();
      informers?.stop();
      if (!options.client) {
        await client?.close();
        await statusClient?.close();
      }
      cri.close();
    },
  };
}
