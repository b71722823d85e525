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

const ROW_HEIGHT = 23;
/** Rows drawn above and below the visible ones, so a small scroll shows no gap. */
const OVERSCAN = 10;

/**
 * A table of one resource type's rows as the server's Table view gives them, keyed by
 * namespace/name. Only the rows in view are in the DOM (virtualised, fixed row height), so
 * 10,000 objects cost as much to draw as 40.
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

  constructor(private readonly onSelect: (key: string) => void) {
    this.element = el('div', { class: 'scroller' }, el('table', {}, this.#thead, this.#tbody));
    this.element.addEventListener('scroll', () => this.#render());
    this.#tbody.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest('tr');
      const key = row?.dataset['key'];
      if (key !== undefined) {
        this.#selected = key;
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
    this.#renderHead();
  }

  setColumns(columns: readonly Column[]): void {
    this.#columns = columns.filter((c) => (c.priority ?? 0) === 0);
    this.#renderHead();
  }

  /** Applies rows added or changed and keys deleted; redraws once. */
  apply(changes: readonly { readonly type: 'upsert' | 'delete'; readonly row: TableRow }[]): void {
    let membership = false;
    const now = performance.now();
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
    if (membership) this.#order = [...this.#rows.keys()].sort();
    this.#render();
  }

  #renderHead(): void {
    const names = [...(this.#showNamespace ? ['Namespace'] : []), ...this.#columns.map((c) => c.name)];
    this.#thead.replaceChildren(el('tr', {}, ...names.map((name) => el('th', {}, name))));
  }

  #render(): void {
    const viewport = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.#order.length, first + Math.ceil(viewport / ROW_HEIGHT) + 2 * OVERSCAN);
    const now = performance.now();
    const rows: HTMLElement[] = [];
    if (first > 0) rows.push(el('tr', { style: `height:${first * ROW_HEIGHT}px` }));
    for (let i = first; i < last; i++) {
      const entry = this.#rows.get(this.#order[i]!)!;
      const cells = [...(this.#showNamespace ? [entry.namespace] : []), ...this.#columns.map((_, c) => entry.cells[c])];
      const recent = now - entry.changedAt < 1000;
      const row = el('tr', { class: recent ? 'row flash' : 'row', 'data-key': entry.key, style: `height:${ROW_HEIGHT}px` }, ...cells.map((cell) => el('td', {}, cellText(cell))));
      if (entry.key === this.#selected) row.style.background = '#e3ecff';
      rows.push(row);
    }
    if (last < this.#order.length) rows.push(el('tr', { style: `height:${(this.#order.length - last) * ROW_HEIGHT}px` }));
    this.#tbody.replaceChildren(...rows);
  }
}

function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'object') return JSON.stringify(cell);
  return String(cell);
}
