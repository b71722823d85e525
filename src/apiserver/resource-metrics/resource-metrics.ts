import type { NodeAgentEndpoint, NodeAgentProxy } from '../subresources/index.js';
import type { NodeEndpoints } from './node-endpoints.js';
import { summarySamples, type PodRef } from './summary-samples.js';
import { advance, usageOf, type Series, type Usage } from './usage-series.js';

/**
 * The resource metrics the API server serves (metrics.svc.io / metrics.k8s.io): every
 * `resolutionMs` it reads each registered node's `/stats/summary` through the node agent client
 * (its client certificate, as logs and exec), keeps each CPU counter's last two samples and
 * serves the rate between them, as metrics-server does. A node whose agent does not answer
 * drops out with its pods until it answers again; a pod or container gone from the summary
 * drops out at once.
 */

/** Nodes scraped at once in a round (metrics-server reads every node in parallel; this bounds it). */
const SCRAPES_AT_ONCE = 16;

export interface ResourceMetricsOptions {
  /** The registered Nodes' agent endpoints, read at the start of each round (`cachedNodeEndpoints`). */
  readonly nodes: NodeEndpoints;
  readonly proxy: NodeAgentProxy;
  /** How often the agents are read (metrics-server's `--metric-resolution`). */
  readonly resolutionMs: number;
  readonly now?: () => number;
  /** Told when a node's scrape fails (once per failure streak). */
  readonly warn?: (message: string) => void;
}

export interface PodUsage {
  readonly ref: PodRef;
  /** Containers by name, in the order the agent listed them. */
  readonly containers: ReadonlyMap<string, Usage>;
  readonly timestampMs: number;
  readonly windowMs: number;
}

interface NodeState {
  node: Series | undefined;
  /** `uid/container` → series. */
  containers: Map<string, Series>;
  pods: Map<string, { ref: PodRef; names: string[] }>;
}

export class ResourceMetrics {
  readonly #options: ResourceMetricsOptions;
  readonly #nodes = new Map<string, NodeState>();
  readonly #failing = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(options: ResourceMetricsOptions) {
    this.#options = options;
  }

  /** Scrapes now and then every resolution; the timer keeps no process alive. */
  start(): void {
    if (this.#timer) return;
    void this.scrape();
    this.#timer = setInterval(() => void this.scrape(), this.#options.resolutionMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One round over the registered nodes (a round still running is awaited, not doubled). */
  scrape(): Promise<void> {
    this.#running ??= this.#scrapeAll().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #scrapeAll(): Promise<void> {
    let nodes: readonly NodeAgentEndpoint[];
    try {
      nodes = await this.#options.nodes();
    } catch {
      return;
    }
    const names = new Set(nodes.map((n) => n.node));
    for (const name of this.#nodes.keys()) if (!names.has(name)) this.#nodes.delete(name);
    // A bounded number of scrapes at once: one round over a thousand nodes must not open a
    // thousand connections (or queue a thousand timeouts) in the API server at the same moment.
    let next = 0;
    const scrapeNext = async (): Promise<void> => {
      for (let node = nodes[next++]; node !== undefined; node = nodes[next++]) await this.#scrapeNode(node);
    };
    await Promise.all(Array.from({ length: Math.min(SCRAPES_AT_ONCE, nodes.length) }, scrapeNext));
  }

  async #scrapeNode(endpoint: NodeAgentEndpoint): Promise<void> {
    const name = endpoint.node;
    if (endpoint.address === undefined || !endpoint.port) return;
    try {
      const body = await this.#options.proxy.fetch(endpoint, '/stats/summary');
      this.#record(name, JSON.parse(body.toString('utf8')) as unknown);
      this.#failing.delete(name);
    } catch (error) {
      this.#nodes.delete(name);
      if (!this.#failing.has(name)) {
        this.#failing.add(name);
        this.#options.warn?.(`resource metrics: node ${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  #record(nodeName: string, summary: unknown): void {
    const now = (this.#options.now ?? Date.now)();
    const samples = summarySamples(summary, now);
    const old = this.#nodes.get(nodeName);
    const state: NodeState = { node: samples.node ? advance(old?.node, samples.node) : undefined, containers: new Map(), pods: new Map() };
    for (const [uid, pod] of samples.pods) {
      const names: string[] = [];
      for (const [container, sample] of pod.containers) {
        const key = `${uid}/${container}`;
        state.containers.set(key, advance(old?.containers.get(key), sample));
        names.push(container);
      }
      state.pods.set(`${pod.ref.namespace}/${pod.ref.name}`, { ref: pod.ref, names });
    }
    this.#nodes.set(nodeName, state);
  }

  /** A node's usage, once two samples are in. */
  node(name: string): Usage | undefined {
    return usageOf(this.#nodes.get(name)?.node);
  }

  /** A pod's usage, once every container of it has two samples (a half-known pod is not shown, as metrics-server). */
  pod(namespace: string, name: string, uid?: string): PodUsage | undefined {
    for (const state of this.#nodes.values()) {
      const pod = state.pods.get(`${namespace}/${name}`);
      if (!pod || (uid !== undefined && pod.ref.uid !== uid) || pod.names.length === 0) continue;
      const containers = new Map<string, Usage>();
      let timestampMs = 0;
      let windowMs = 0;
      for (const container of pod.names) {
        const usage = usageOf(state.containers.get(`${pod.ref.uid}/${container}`));
        if (!usage) return undefined;
        containers.set(container, usage);
        timestampMs = Math.max(timestampMs, usage.timestampMs);
        windowMs = Math.max(windowMs, usage.windowMs);
      }
      return { ref: pod.ref, containers, timestampMs, windowMs };
    }
    return undefined;
  }
}
