import type { KubeObject } from './api.js';
import { el } from './dom.js';

export interface Column {
  readonly name: string;
  readonly type?: string;
  readonly priority?: number;
}

export interface TableRow {
  readonly cells: readonly unknown[];
  readonly object?: KubeObject;
}

interface Entry {
  readonly key: string;
  cells: readonly unknown[];
  namespace: string;
  name: string;
  changedAt: number;
}

/** A row element in the DOM, and the change of its entry it shows. */
interface Drawn {
  readonly element: HTMLTableRowElement;
  readonly changedAt: number;
}

const ROW_HEIGHT = 23;
/** Rows drawn above and below the visible ones, so a small scroll shows no gap. */
const OVERSCAN = 10;

/**
 * A table of one resource type's rows as the server's Table view gives them, keyed by
 * namespace/name. Only the rows in view are in the DOM (virtualised, fixed row height), so
 * 10,000 objects cost as much to draw as 40. A frame's changes touch the DOM only where they are
 * in view: at 1,000 events/s over 10,000 rows, nearly every event is off screen, and a frame
 * whose changes all are costs no DOM work, style or layout at all (docs/benchmarks.md, #25).
 */
export class ObjectTable {
  readonly element: HTMLElement;
  readonly #thead = el('thead');
  readonly #tbody = el('tbody');
  readonly #rows = new Map<string, Entry>();
  #order: string[] = [];
  #columns: Column[] = [];
  #showNamespace = false;
  #selected: string | undefined;
  /** The rows in the DOM by key, kept while in view so an unchanged row is never built again. */
  #drawn = new Map<string, Drawn>();
  /** The range of #order drawn, and its length then: another range or order is a full redraw. */
  #drawnRange = { first: -1, last: -1, total: -1 };
  /** Bumped when the order of rows changes (an add or a delete): the drawn range is stale. */
  #orderVersion = 0;
  #drawnOrderVersion = -1;

  constructor(private readonly onSelect: (key: string) => void) {
    this.element = el('div', { class: 'scroller' }, el('table', {}, this.#thead, this.#tbody));
    this.element.addEventListener('scroll', () => this.#render());
    this.#tbody.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest('tr');
      const key = row?.dataset['key'];
      if (key !== undefined) {
        this.#select(key);
        this.onSelect(key);
      }
    });
  }

  get size(): number {
    return this.#rows.size;
  }

  reset(columns: readonly Column[] | undefined, showNamespace: boolean): void {
    if (columns !== undefined) this.#columns = columns.filter((c) => (c.priority ?? 0) === 0);
    this.#showNamespace = showNamespace;
    this.#rows.clear();
    this.#order = [];
    this.#orderVersion++;
    this.#drawn.clear();
    this.#renderHead();
  }

  /** The columns a watch's first event names again: the rows drawn stay when they are the same. */
  setColumns(columns: readonly Column[]): void {
    const shown = columns.filter((c) => (c.priority ?? 0) === 0);
    if (shown.length === this.#columns.length && shown.every((c, i) => c.name === this.#columns[i]!.name)) return;
    this.#columns = shown;
    this.#drawn.clear();
    this.#renderHead();
  }

  /** Applies rows added or changed and keys deleted; redraws once, and only what is in view. */
  apply(changes: readonly { readonly type: 'upsert' | 'delete'; readonly row: TableRow }[]): void {
    let membership = false;
    const now = performance.now();
    // One object changed several times in a frame is one update (the last one is what shows).
    for (const change of changes) {
      const meta = change.row.object?.metadata ?? {};
      const key = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
      if (change.type === 'delete') {
        membership = this.#rows.delete(key) || membership;
        continue;
      }
      const entry = this.#rows.get(key);
      if (entry === undefined) {
        this.#rows.set(key, { key, cells: change.row.cells, namespace: meta.namespace ?? '', name: meta.name ?? '', changedAt: now });
        membership = true;
      } else {
        entry.cells = change.row.cells;
        entry.changedAt = now;
      }
    }
    if (membership) {
      this.#order = [...this.#rows.keys()].sort();
      this.#orderVersion++;
    }
    this.#render();
  }

  #select(key: string): void {
    const previous = this.#selected;
    this.#selected = key;
    for (const changed of [previous, key]) {
      const drawn = changed === undefined ? undefined : this.#drawn.get(changed);
      if (drawn !== undefined) drawn.element.style.background = changed === key ? SELECTED : '';
    }
  }

  #renderHead(): void {
    const names = [...(this.#showNamespace ? ['Namespace'] : []), ...this.#columns.map((c) => c.name)];
    this.#thead.replaceChildren(el('tr', {}, ...names.map((name) => el('th', {}, name))));
  }

  /**
   * Brings the DOM in line with the rows in view. The same range in the same order: only the
   * rows whose entry changed since they were drawn are replaced (a fresh element restarts the
   * flash animation), and nothing is touched when none did. Another range (a scroll, a resize)
   * or order (an add, a delete): the range is drawn again, reusing the unchanged rows' elements.
   */
  #render(): void {
    // clientHeight is read only when the view's size can matter; it forces no layout while the
    // DOM is clean, which it is at the start of a frame.
    const viewport = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.#order.length, first + Math.ceil(viewport / ROW_HEIGHT) + 2 * OVERSCAN);
    const range = this.#drawnRange;
    if (range.first === first && range.last === last && range.total === this.#order.length && this.#drawnOrderVersion === this.#orderVersion) {
      for (let i = first; i < last; i++) {
        const entry = this.#rows.get(this.#order[i]!)!;
        const drawn = this.#drawn.get(entry.key);
        if (drawn !== undefined && drawn.changedAt === entry.changedAt) continue;
        const element = this.#row(entry);
        if (drawn !== undefined) drawn.element.replaceWith(element);
        else return this.#redraw(first, last);
      }
      return;
    }
    this.#redraw(first, last);
  }

  #redraw(first: number, last: number): void {
    const drawn = new Map<string, Drawn>();
    const rows: HTMLElement[] = [];
    if (first > 0) rows.push(el('tr', { style: `height:${first * ROW_HEIGHT}px` }));
    const now = performance.now();
    for (let i = first; i < last; i++) {
      const entry = this.#rows.get(this.#order[i]!)!;
      const kept = this.#drawn.get(entry.key);
      const element = kept !== undefined && kept.changedAt === entry.changedAt ? kept.element : this.#row(entry);
      // Put back in the DOM, a row's animation plays again: only one that changed within the second may flash.
      if (element === kept?.element && now - entry.changedAt >= 1000) element.classList.remove('flash');
      drawn.set(entry.key, { element, changedAt: entry.changedAt });
      rows.push(element);
    }
    if (last < this.#order.length) rows.push(el('tr', { style: `height:${(this.#order.length - last) * ROW_HEIGHT}px` }));
    this.#tbody.replaceChildren(...rows);
    this.#drawn = drawn;
    this.#drawnRange = { first, last, total: this.#order.length };
    this.#drawnOrderVersion = this.#orderVersion;
  }

  /** A row element for an entry, recorded as drawn; flashing when it changed in the last second. */
  #row(entry: Entry): HTMLTableRowElement {
    const cells = [...(this.#showNamespace ? [entry.namespace] : []), ...this.#columns.map((_, c) => entry.cells[c])];
    const recent = performance.now() - entry.changedAt < 1000;
    const element = el('tr', { class: recent ? 'row flash' : 'row', 'data-key': entry.key, style: `height:${ROW_HEIGHT}px` }, ...cells.map((cell) => el('td', {}, cellText(cell))));
    if (entry.key === this.#selected) element.style.background = SELECTED;
    this.#drawn.set(entry.key, { element, changedAt: entry.changedAt });
    return element;
  }
}

const SELECTED = '#e3ecff';

function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'object') return JSON.stringify(cell);
  return String(cell);
}
