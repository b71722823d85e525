import { Counter, Gauge, Registry } from 'prom-client';
import type { Pod } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';

/**
 * The agent's own metrics, computed at scrape time: running pods (from the pods it runs) and
 * containers by state (from the runtime), plus the server's request counter. A registry the
 * workers fill (probe and sync counters) is merged in when given. Names follow the kubelet's
 * with svc's prefix.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'path' | 'server_type' | 'code'>;

  constructor(
    private readonly options: { cri: CriClient; pods: () => readonly Pod[]; extra?: Registry | undefined },
  ) {
    const { cri, pods } = options;
    new Gauge({
      name: 'nodeagent_running_pods',
      help: 'Pods whose phase is Running on this node.',
      registers: [this.registry],
      collect() {
        this.set(pods().filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length);
      },
    });
    new Gauge({
      name: 'nodeagent_running_containers',
      help: 'Containers the runtime reports, by state.',
      labelNames: ['container_state'],
      registers: [this.registry],
      async collect() {
        // A runtime that does not answer leaves the gauge empty rather than failing the whole scrape.
        const containers = await cri.listContainers({}).then((r) => r.containers, () => undefined);
        this.reset();
        if (!containers) return;
        const counts: Record<string, number> = { created: 0, running: 0, exited: 0, unknown: 0 };
        for (const c of containers) {
          const state = c.state.replace(/^CONTAINER_/, '').toLowerCase();
          counts[state] = (counts[state] ?? 0) + 1;
        }
        for (const [state, n] of Object.entries(counts)) this.set({ container_state: state }, n);
      },
    });
    this.requests = new Counter({
      name: 'nodeagent_http_requests_total',
      help: 'Requests the agent server answered, by method, first path segment, server type (readonly or readwrite) and code.',
      labelNames: ['method', 'path', 'server_type', 'code'],
      registers: [this.registry],
    });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const registry = this.options.extra ? Registry.merge([this.registry, this.options.extra]) : this.registry;
    return { contentType: registry.contentType, text: await registry.metrics() };
  }
}
