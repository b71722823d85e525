import { listAndWatch, type KubeObject } from './api.js';
import { el } from './dom.js';
import { FrameBatcher } from './frame-batcher.js';
import { podRequest, type PodRequestsSpec } from './pod-requests.js';
import { formatMilliShort, milliValue } from '../../browser-safe/index.js';

interface Condition {
  readonly type: string;
  readonly status: string;
}

interface Node extends KubeObject {
  readonly status?: { conditions?: Condition[]; capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

interface Pod extends KubeObject {
  readonly spec?: PodRequestsSpec & { nodeName?: string };
  readonly status?: { phase?: string };
}

interface Event extends KubeObject {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly lastTimestamp?: string;
  readonly eventTime?: string;
  readonly involvedObject?: { kind?: string; namespace?: string; name?: string };
  readonly regarding?: { kind?: string; namespace?: string; name?: string };
}

/** Recent Events shown: the newest. */
const RECENT_EVENTS = 30;
const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;

/** Summed per node: what `kubectl describe node` shows as "Allocated resources". */
const ALLOCATED = ['cpu', 'memory'] as const;

/**
 * The cluster at a glance, from three watches: nodes with their conditions, capacity and
 * allocatable, how many pods each runs and what they request (allocated: the requests of the
 * pods bound to it that have not finished, with their share of allocatable); pods by phase; the
 * newest Events. Allocated is summed from the pod watch the view holds anyway, on each frame.
 */
export class OverviewView {
  readonly element: HTMLElement;
  readonly #nodes = el('tbody', { id: 'overview-nodes' });
  readonly #phases = el('div', { class: 'phases', id: 'overview-phases' });
  readonly #events = el('tbody', { id: 'overview-events' });
  readonly #nodeMap = new Map<string, Node>();
  readonly #podMap = new Map<string, Pod>();
  readonly #eventMap = new Map<string, Event>();
  readonly #batcher = new FrameBatcher<void>(() => this.#render());
  #watches: AbortController | undefined;

  constructor() {
    const table = (id: string, headings: string[], body: HTMLElement) => el('table', { id }, el('thead', {}, el('tr', {}, ...headings.map((h) => el('th', {}, h)))), body);
    this.element = el(
      'section',
      { class: 'content overview' },
      el('div', { class: 'scroller' },
        el('h3', {}, 'Nodes'),
        table('overview-nodes-table', ['Name', 'Conditions', 'CPU (capacity / allocatable)', 'Memory (capacity / allocatable)', 'Pods', 'CPU requests', 'Memory requests'], this.#nodes),
        el('h3', {}, 'Pods by phase'),
        this.#phases,
        el('h3', {}, 'Recent events'),
        table('overview-events-table', ['Last seen', 'Type', 'Reason', 'Object', 'Message', 'Count'], this.#events),
      ),
    );
  }

  /** Opens the view's three watches (each lists first, so the view is whole again). */
  show(): void {
    this.#watches?.abort();
    const watches = new AbortController();
    this.#watches = watches;
    this.#follow<Node>('/api/v1/nodes', this.#nodeMap, watches.signal);
    this.#follow<Pod>('/api/v1/pods', this.#podMap, watches.signal);
    this.#follow<Event>('/api/v1/events', this.#eventMap, watches.signal);
  }

  /** Closes them: see main.ts on the browser's six connections. */
  hide(): void {
    this.#watches?.abort();
    this.#watches = undefined;
  }

  #follow<T extends KubeObject>(path: string, into: Map<string, T>, signal: AbortSignal): void {
    const key = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    void listAndWatch<{ items?: T[]; metadata?: { resourceVersion?: string } }>({
      path,
      query: {},
      accept: 'application/json',
      signal,
      onList: (list) => {
        into.clear();
        for (const item of list.items ?? []) into.set(key(item), item);
        this.#batcher.push();
      },
      onEvent: ({ event }) => {
        if (event.type === 'BOOKMARK') return;
        if (event.type === 'DELETED') into.delete(key(event.object));
        else into.set(key(event.object), event.object as T);
        this.#batcher.push();
      },
    });
  }

  #render(): void {
    const podsOnNode = new Map<string, number>();
    const allocated = new Map<string, Record<(typeof ALLOCATED)[number], number>>();
    const phases = new Map<string, number>(PHASES.map((p) => [p, 0]));
    for (const pod of this.#podMap.values()) {
      const phase = pod.status?.phase ?? 'Pending';
      phases.set(phase, (phases.get(phase) ?? 0) + 1);
      const node = pod.spec?.nodeName;
      if (node === undefined || phase === 'Succeeded' || phase === 'Failed') continue;
      podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
      const sums = allocated.get(node) ?? { cpu: 0, memory: 0 };
      for (const resource of ALLOCATED) sums[resource] += podRequest(pod.spec, resource);
      allocated.set(node, sums);
    }
    this.#nodes.replaceChildren(
      ...[...this.#nodeMap.values()]
        .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
        .map((node) => {
          const name = node.metadata?.name ?? '';
          const conditions = (node.status?.conditions ?? []).filter((c) => (c.type === 'Ready' ? true : c.status === 'True'));
          const s = node.status ?? {};
          const requested = (resource: (typeof ALLOCATED)[number]) => {
            const milli = allocated.get(name)?.[resource] ?? 0;
            const of = milliValue(s.allocatable?.[resource]);
            // Truncated, as kubectl prints it.
            const percent = of > 0 ? Math.trunc((milli / of) * 100) : 0;
            return el('td', { 'data-allocated': resource }, `${formatMilliShort(milli)} (${percent}%)`);
          };
          return el(
            'tr',
            { 'data-node': name },
            el('td', {}, name),
            el('td', {}, ...conditions.map((c) => el('span', { class: c.type === 'Ready' && c.status === 'True' ? 'ok' : 'bad' }, c.type === 'Ready' ? (c.status === 'True' ? 'Ready ' : `NotReady(${c.status}) `) : `${c.type} `))),
            el('td', {}, `${s.capacity?.['cpu'] ?? '?'} / ${s.allocatable?.['cpu'] ?? '?'}`),
            el('td', {}, `${s.capacity?.['memory'] ?? '?'} / ${s.allocatable?.['memory'] ?? '?'}`),
            el('td', {}, `${podsOnNode.get(name) ?? 0} / ${s.allocatable?.['pods'] ?? '?'}`),
            ...ALLOCATED.map(requested),
          );
        }),
    );
    this.#phases.replaceChildren(...[...phases].map(([phase, count]) => el('span', { class: `phase phase-${phase}`, 'data-phase': phase }, `${phase} ${count}`)));
    const when = (e: Event) => e.lastTimestamp ?? e.eventTime ?? '';
    this.#events.replaceChildren(
      ...[...this.#eventMap.values()]
        .sort((a, b) => when(b).localeCompare(when(a)))
        .slice(0, RECENT_EVENTS)
        .map((e) => {
          const about = e.involvedObject ?? e.regarding ?? {};
          return el(
            'tr',
            {},
            el('td', {}, when(e)),
            el('td', { class: e.type === 'Warning' ? 'bad' : '' }, e.type ?? ''),
            el('td', {}, e.reason ?? ''),
            el('td', {}, `${about.kind ?? ''} ${about.namespace === undefined ? '' : `${about.namespace}/`}${about.name ?? ''}`),
            el('td', { class: 'message' }, e.message ?? ''),
            el('td', {}, String(e.count ?? 1)),
          );
        }),
    );
  }
}
