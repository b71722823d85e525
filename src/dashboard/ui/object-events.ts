import { listAndWatch, type KubeObject } from './api.js';
import { el } from './dom.js';
import { FrameBatcher } from './frame-batcher.js';

interface EventObject extends KubeObject {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly lastTimestamp?: string;
  readonly eventTime?: string;
  readonly firstTimestamp?: string;
  readonly metadata?: KubeObject['metadata'] & { readonly creationTimestamp?: string };
}

/** Newest first, at most this many. */
const SHOWN = 50;

const when = (e: EventObject): string => e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? '';

/**
 * An object's Events, live: a watch of Events with `involvedObject.uid` the object's (in its
 * namespace; across all for a cluster-scoped object, whose Events land in `default`). The
 * returned table updates until `signal` aborts.
 */
export function objectEvents(uid: string, namespace: string, signal: AbortSignal): HTMLElement {
  const body = el('tbody');
  const table = el('table', { id: 'object-events' }, el('thead', {}, el('tr', {}, ...['Type', 'Reason', 'Message', 'Count', 'Last seen'].map((h) => el('th', {}, h)))), body);
  const events = new Map<string, EventObject>();
  const draw = new FrameBatcher<void>(() => {
    const rows = [...events.values()].sort((a, b) => when(b).localeCompare(when(a))).slice(0, SHOWN);
    body.replaceChildren(
      ...(rows.length === 0
        ? [el('tr', {}, el('td', { colspan: '5' }, 'No events'))]
        : rows.map((e) =>
            el(
              'tr',
              { 'data-event': e.metadata?.name ?? '' },
              el('td', { class: e.type === 'Warning' ? 'bad' : '' }, e.type ?? ''),
              el('td', {}, e.reason ?? ''),
              el('td', { class: 'message' }, e.message ?? ''),
              el('td', {}, String(e.count ?? 1)),
              el('td', {}, when(e)),
            ),
          )),
    );
  });
  const path = namespace === '' ? '/api/v1/events' : `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  void listAndWatch<{ items?: EventObject[]; metadata?: { resourceVersion?: string } }>({
    path,
    query: { fieldSelector: `involvedObject.uid=${uid}` },
    accept: 'application/json',
    signal,
    onList: (list) => {
      events.clear();
      for (const e of list.items ?? []) events.set(e.metadata?.uid ?? e.metadata?.name ?? '', e);
      draw.push();
    },
    onEvent: ({ event }) => {
      if (event.type === 'BOOKMARK') return;
      const e = event.object as EventObject;
      const key = e.metadata?.uid ?? e.metadata?.name ?? '';
      if (event.type === 'DELETED') events.delete(key);
      else events.set(key, e);
      draw.push();
    },
  });
  return table;
}
