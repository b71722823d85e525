import type { ControllersSnapshot, ReconcileRecord } from '../../browser-safe/index.js';
import { el } from './dom.js';
import { FrameBatcher } from './frame-batcher.js';
import { TimeSeriesPlot } from './time-series.js';

/** Results kept for the list (newest last). */
const KEPT = 500;
/** Rows of the results list drawn. */
const SHOWN = 100;

/**
 * The Controllers view: the controller manager's loops as its live stream tells them (the
 * dashboard server proxies the manager's `/live/controllers`): per queue its depth, adds, retries
 * and results, the leadership, every reconcile's outcome, key and duration, and plots of the
 * reconcile rate and latency, one sample per snapshot (the manager sends one a second).
 */
export class ControllersView {
  readonly element: HTMLElement;
  readonly #state = el('span', { class: 'count', id: 'controllers-state' });
  readonly #leader = el('div', { class: 'toolbar', id: 'controllers-leader' });
  readonly #loops = el('tbody', { id: 'controllers-loops' });
  readonly #results = el('tbody', { id: 'controllers-results' });
  readonly #filter = el('span', { id: 'controllers-filter' });
  readonly #rate = new TimeSeriesPlot('plot-reconcile-rate', 'Reconciles per second', '/s', [
    { label: 'succeeded', stroke: '#1a7f37' },
    { label: 'failed', stroke: '#cf222e' },
  ]);
  readonly #latency = new TimeSeriesPlot('plot-reconcile-latency', 'Reconcile duration', 'ms', [
    { label: 'p50', stroke: '#4f8cff' },
    { label: 'p99', stroke: '#9a6700' },
    { label: 'max', stroke: '#cf222e' },
  ]);
  readonly #kept: ReconcileRecord[] = [];
  /** Results since the last snapshot, for the plots' next sample. */
  #window: ReconcileRecord[] = [];
  #selected: string | undefined;
  #source: EventSource | undefined;
  readonly #draw = new FrameBatcher<void>(() => this.#renderResults());

  constructor() {
    const loopsTable = el('table', {}, el('thead', {}, el('tr', {}, ...['Controller', 'Queue depth', 'Adds', 'Retries', 'Results'].map((h) => el('th', {}, h)))), this.#loops);
    const resultsTable = el('table', {}, el('thead', {}, el('tr', {}, ...['Time', 'Controller', 'Outcome', 'Duration (ms)', 'Attempts', 'Key', 'Error'].map((h) => el('th', {}, h)))), this.#results);
    const clear = el('button', { type: 'button', id: 'controllers-all' }, 'All controllers');
    clear.addEventListener('click', () => this.#select(undefined));
    this.element = el(
      'section',
      { class: 'content controllers' },
      el('div', { class: 'toolbar' }, el('strong', {}, 'Controllers'), this.#filter, clear, this.#state),
      this.#leader,
      el('div', { class: 'plots' }, this.#rate.element, this.#latency.element),
      el('div', { class: 'split' }, el('div', { class: 'scroller loops' }, loopsTable), el('div', { class: 'scroller' }, resultsTable)),
    );
    this.#loops.addEventListener('click', (event) => {
      const name = (event.target as HTMLElement).closest('tr')?.dataset['loop'];
      if (name !== undefined) this.#select(name);
    });
  }

  show(): void {
    this.#source?.close();
    this.#state.textContent = 'connecting…';
    // EventSource reconnects by itself after a dropped connection; the manager's stream starts
    // each connection with a snapshot, so nothing is lost but results of the gap.
    const source = new EventSource('/controllers/live');
    this.#source = source;
    source.addEventListener('open', () => (this.#state.textContent = 'live'));
    source.addEventListener('snapshot', (event) => this.#onSnapshot(JSON.parse((event as MessageEvent<string>).data) as ControllersSnapshot));
    source.addEventListener('result', (event) => this.#onResult(JSON.parse((event as MessageEvent<string>).data) as ReconcileRecord));
    // The manager dropped this page (too slow) or the stream failed: say why; EventSource retries.
    source.addEventListener('ERROR', (event) => (this.#state.textContent = `dropped: ${(JSON.parse((event as MessageEvent<string>).data) as { message?: string }).message ?? ''}`));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) this.#state.textContent = 'the controller manager is not reachable from this dashboard';
      else this.#state.textContent = 'reconnecting…';
    });
  }

  hide(): void {
    this.#source?.close();
    this.#source = undefined;
  }

  #select(name: string | undefined): void {
    this.#selected = name;
    this.#filter.textContent = name === undefined ? '' : `results of ${name}`;
    for (const row of this.#loops.querySelectorAll('tr')) row.classList.toggle('selected', row.dataset['loop'] === name);
    this.#draw.push();
  }

  #onResult(result: ReconcileRecord): void {
    this.#kept.push(result);
    if (this.#kept.length > KEPT) this.#kept.splice(0, this.#kept.length - KEPT);
    this.#window.push(result);
    this.#draw.push();
  }

  #onSnapshot(snapshot: ControllersSnapshot): void {
    this.#leader.replaceChildren(
      el('span', { id: 'controllers-leading', class: snapshot.leading ? 'ok' : 'bad' }, snapshot.leading ? 'leading' : 'standby'),
      el('span', {}, `identity ${snapshot.identity}`),
      el('span', {}, snapshot.lease === undefined ? 'no leader election' : `Lease ${snapshot.lease}`),
      el('span', {}, `${snapshot.loops.length} loops`),
      ...Object.entries(snapshot.failed).map(([loop, why]) => el('span', { class: 'bad' }, `${loop} failed: ${why}`)),
    );
    this.#loops.replaceChildren(
      ...[...snapshot.queues]
        .sort((a, b) => b.depth - a.depth || b.results - a.results || a.name.localeCompare(b.name))
        .map((q) =>
          el(
            'tr',
            { class: q.name === this.#selected ? 'row selected' : 'row', 'data-loop': q.name },
            el('td', {}, q.name),
            el('td', {}, String(q.depth)),
            el('td', {}, String(q.adds)),
            el('td', {}, String(q.retries)),
            el('td', {}, String(q.results)),
          ),
        ),
    );
    const window = this.#window;
    this.#window = [];
    const failed = window.filter((r) => r.outcome === 'retry' || r.outcome === 'terminal').length;
    const time = snapshot.at / 1000;
    this.#rate.push(time, [window.length - failed, failed]);
    const durations = window.flatMap((r) => (r.durationMs === undefined ? [] : [r.durationMs])).sort((a, b) => a - b);
    const at = (q: number) => (durations.length === 0 ? null : +durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]!.toFixed(2));
    this.#latency.push(time, [at(0.5), at(0.99), durations.length === 0 ? null : +durations[durations.length - 1]!.toFixed(2)]);
  }

  #renderResults(): void {
    const rows: HTMLElement[] = [];
    for (let i = this.#kept.length - 1; i >= 0 && rows.length < SHOWN; i--) {
      const r = this.#kept[i]!;
      if (this.#selected !== undefined && r.controller !== this.#selected && r.loop !== this.#selected) continue;
      rows.push(
        el(
          'tr',
          { 'data-key': r.key, 'data-controller': r.controller },
          el('td', {}, new Date(r.at).toLocaleTimeString()),
          el('td', {}, r.controller),
          el('td', { class: `outcome-${r.outcome}` }, r.outcome === 'requeueAfter' || r.outcome === 'retry' ? `${r.outcome} ${r.afterMs ?? 0} ms` : r.outcome),
          el('td', {}, r.durationMs === undefined ? '' : r.durationMs.toFixed(1)),
          el('td', {}, String(r.attempts)),
          el('td', {}, r.key),
          el('td', { class: 'message' }, r.error ?? ''),
        ),
      );
    }
    this.#results.replaceChildren(...rows);
  }
}
