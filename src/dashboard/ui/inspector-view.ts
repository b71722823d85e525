import { watchLines, withQuery, type RawWatchLine } from './api.js';
import { collectionPath, typeId, type ResourceType } from './discovery.js';
import { el } from './dom.js';
import { FrameBatcher } from './frame-batcher.js';
import { TimeSeriesPlot } from './time-series.js';

/** Events kept for the view and the export; older ones are dropped (and counted). */
const KEPT = 10_000;
/** Rows drawn: the newest; the export has all KEPT. */
const DRAWN = 500;

interface Seen {
  readonly at: number;
  readonly line: RawWatchLine;
}

/**
 * The raw event stream of one watch as asked (bookmarks only when ticked): type,
 * resourceVersion, object, size, bytes per second;
 * pause (events still recorded, not drawn) and resume; export as NDJSON in the test kit's
 * recording format (`{"at","source","type","object"}` lines, svc/testing's EventLine).
 */
export class InspectorView {
  readonly element: HTMLElement;
  readonly #type = el('select', { id: 'inspector-type' });
  readonly #namespace = el('input', { type: 'text', placeholder: 'Namespace (all)', id: 'inspector-namespace', size: '14' });
  readonly #selector = el('input', { type: 'text', placeholder: 'Label selector', id: 'inspector-selector', size: '20' });
  readonly #bookmarks = el('input', { type: 'checkbox', id: 'inspector-bookmarks' });
  readonly #start = el('button', { type: 'button', id: 'inspector-start' }, 'Watch');
  readonly #pause = el('button', { type: 'button', id: 'inspector-pause' }, 'Pause');
  readonly #export = el('button', { type: 'button', id: 'inspector-export' }, 'Export NDJSON');
  readonly #stats = el('span', { class: 'count', id: 'inspector-stats' });
  readonly #body = el('tbody', { id: 'inspector-events' });
  #types: ResourceType[] = [];
  #events: Seen[] = [];
  #dropped = 0;
  /** Why the watch is over, when it is: said after the counts (a later render keeps it). */
  #ended: string | undefined;
  #bytes = 0;
  #rate: { at: number; bytes: number }[] = [];
  #paused = false;
  #watch: AbortController | undefined;
  #source = '';
  readonly #batcher = new FrameBatcher<Seen>(() => this.#render());
  readonly #plot = new TimeSeriesPlot('plot-watch-rate', 'Watch events per second', '/s', [{ label: 'events', stroke: '#4f8cff' }]);
  /** The second being counted (epoch s) and its events; a second is drawn once the next begins. */
  #second = { at: 0, events: 0 };

  constructor() {
    const head = el('tr', {}, ...['Time', 'Type', 'resourceVersion', 'Namespace/Name', 'Bytes'].map((h) => el('th', {}, h)));
    this.element = el(
      'section',
      { class: 'content' },
      el('div', { class: 'toolbar' }, this.#type, this.#namespace, this.#selector, el('label', {}, this.#bookmarks, ' bookmarks'), this.#start, this.#pause, this.#export, this.#stats),
      el('div', { class: 'plots' }, this.#plot.element),
      el('div', { class: 'scroller' }, el('table', {}, el('thead', {}, head), this.#body)),
    );
    this.#start.addEventListener('click', () => this.start());
    this.#pause.addEventListener('click', () => {
      this.#paused = !this.#paused;
      this.#pause.textContent = this.#paused ? 'Resume' : 'Pause';
      this.#render();
    });
    this.#export.addEventListener('click', () => this.#download());
  }

  setTypes(types: ResourceType[]): void {
    const chosen = this.#type.value || 'configmaps';
    this.#types = types;
    this.#type.replaceChildren(...types.map((t) => el('option', { value: typeId(t) }, typeId(t))));
    if (types.some((t) => typeId(t) === chosen)) this.#type.value = chosen;
  }

  show(): void {}

  /** Stops the watch (its events stay, for export): see main.ts on the browser's six connections. */
  hide(): void {
    if (this.#watch === undefined || this.#watch.signal.aborted) return;
    this.#watch.abort();
    this.#ended = 'stopped (view left)';
    this.#render();
  }

  start(): void {
    this.#watch?.abort();
    const type = this.#types.find((t) => typeId(t) === this.#type.value);
    if (type === undefined) return;
    const watch = new AbortController();
    this.#watch = watch;
    this.#events = [];
    this.#dropped = 0;
    this.#bytes = 0;
    this.#rate = [];
    this.#ended = undefined;
    this.#second = { at: 0, events: 0 };
    this.#plot.clear();
    this.#source = typeId(type);
    this.#render();
    const url = withQuery(collectionPath(type, this.#namespace.value.trim()), { watch: 'true', allowWatchBookmarks: this.#bookmarks.checked ? 'true' : undefined, labelSelector: this.#selector.value.trim() });
    void (async () => {
      try {
        for await (const line of watchLines(url, 'application/json', watch.signal)) {
          const seen = { at: Date.now(), line };
          this.#events.push(seen);
          if (this.#events.length > KEPT) {
            this.#events.shift();
            this.#dropped++;
          }
          this.#bytes += line.bytes;
          this.#count(seen.at);
          this.#rate.push({ at: seen.at, bytes: line.bytes });
          this.#batcher.push(seen);
        }
        if (!watch.signal.aborted) {
          this.#ended = 'ended by the server';
          this.#render();
        }
      } catch (error) {
        if (!watch.signal.aborted) {
          this.#ended = `watch failed: ${error instanceof Error ? error.message : String(error)}`;
          this.#render();
        }
      }
    })();
  }

  /**
   * Counts an event into its second; the seconds before it that have ended are drawn (quiet ones
   * as 0, up to a minute of them). Driven by the events themselves: no timer.
   */
  #count(at: number): void {
    const second = Math.floor(at / 1000);
    if (this.#second.at === 0) this.#second = { at: second, events: 0 };
    if (second > this.#second.at) {
      this.#plot.push(this.#second.at, [this.#second.events]);
      for (let quiet = Math.max(this.#second.at + 1, second - 60); quiet < second; quiet++) this.#plot.push(quiet, [0]);
      this.#second = { at: second, events: 0 };
    }
    this.#second.events++;
  }

  #render(): void {
    const now = Date.now();
    while (this.#rate.length > 0 && this.#rate[0]!.at < now - 1000) this.#rate.shift();
    const perSecond = this.#rate.reduce((sum, r) => sum + r.bytes, 0);
    this.#stats.textContent = `${this.#events.length + this.#dropped} events · ${this.#bytes} bytes · ${perSecond} B/s${this.#paused ? ' · paused' : ''}${this.#dropped > 0 ? ` · ${this.#dropped} dropped` : ''}${this.#ended === undefined ? '' : ` · ${this.#ended}`}`;
    if (this.#paused) return;
    const rows = this.#events.slice(-DRAWN).reverse().map(({ at, line }) => {
      const meta = line.event.object.metadata ?? {};
      return el(
        'tr',
        { class: 'event' },
        el('td', {}, new Date(at).toISOString().slice(11, 23)),
        el('td', { class: `type-${line.event.type}` }, line.event.type),
        el('td', {}, meta.resourceVersion ?? ''),
        el('td', {}, meta.namespace === undefined ? (meta.name ?? '') : `${meta.namespace}/${meta.name ?? ''}`),
        el('td', {}, String(line.bytes)),
      );
    });
    this.#body.replaceChildren(...rows);
  }

  /** The kept events in the test kit's recording format, one JSON line each. */
  ndjson(): string {
    return this.#events.map(({ at, line }) => `${JSON.stringify({ at, source: this.#source, type: line.event.type, object: line.event.object })}\n`).join('');
  }

  #download(): void {
    const link = el('a', { href: URL.createObjectURL(new Blob([this.ndjson()], { type: 'application/x-ndjson' })), download: `${this.#source || 'watch'}.ndjson` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }
}
