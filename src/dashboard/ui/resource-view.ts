import { stringify as toYaml } from 'yaml';
import { getJson, listAndWatch, TABLE_ACCEPT, type KubeObject, type RawWatchLine } from './api.js';
import { collectionPath, typeId, type ResourceType } from './discovery.js';
import { el } from './dom.js';
import { FrameBatcher } from './frame-batcher.js';
import { ObjectTable, type Column, type TableRow } from './object-table.js';

interface Table {
  readonly kind?: string;
  readonly columnDefinitions?: readonly Column[];
  readonly rows?: readonly TableRow[];
  readonly metadata?: { resourceVersion?: string };
}

export interface Filters {
  namespace: string;
  labelSelector: string;
}

/** Resource picker, the live table of the chosen type, filters, and the picked object's YAML. */
export class ResourceView {
  readonly element: HTMLElement;
  readonly #picker = el('ul', { id: 'resource-list' });
  readonly #search = el('input', { type: 'search', placeholder: 'Filter resources', id: 'resource-search' });
  readonly #namespace = el('select', { id: 'namespace' }, el('option', { value: '' }, 'All namespaces'));
  readonly #selector = el('input', { type: 'text', placeholder: 'Label selector, e.g. app=web', id: 'label-selector', size: '28' });
  readonly #fields = el('input', { type: 'text', placeholder: 'Field selector, e.g. status.phase=Running', id: 'field-selector', size: '28' });
  readonly #count = el('span', { class: 'count', id: 'row-count' });
  readonly #title = el('strong', { id: 'resource-title' });
  readonly #table = new ObjectTable((key) => void this.#showObject(key));
  readonly #detail = el('div', { class: 'detail', id: 'detail' });
  #types: ResourceType[] = [];
  #current: ResourceType | undefined;
  #watch: AbortController | undefined;
  #detailWatch: { key: string; format: 'yaml' | 'json'; text: string } | undefined;

  constructor(private readonly onState: (state: string) => void) {
    const aside = el('aside', {}, this.#search, this.#picker);
    const toolbar = el('div', { class: 'toolbar' }, this.#title, this.#namespace, this.#selector, this.#fields, this.#count);
    this.element = el('div', { class: 'resources' }, aside, el('section', { class: 'content' }, toolbar, this.#table.element, this.#detail));
    this.#search.addEventListener('input', () => this.#renderPicker());
    this.#picker.addEventListener('click', (event) => {
      const id = (event.target as HTMLElement).closest('li')?.dataset['type'];
      const type = this.#types.find((t) => typeId(t) === id);
      if (type !== undefined) this.select(type);
    });
    this.#namespace.addEventListener('change', () => this.#restart());
    this.#selector.addEventListener('change', () => this.#restart());
    this.#fields.addEventListener('change', () => this.#restart());
  }

  setTypes(types: ResourceType[]): void {
    this.#types = types;
    this.#renderPicker();
    if (this.#current === undefined) {
      const first = types.find((t) => t.name === 'pods' && t.group === '') ?? types[0];
      if (first !== undefined) this.select(first);
    }
  }

  /** The namespace filter's choices, kept live by the caller's namespace watch. */
  setNamespaces(names: readonly string[]): void {
    const chosen = this.#namespace.value;
    this.#namespace.replaceChildren(el('option', { value: '' }, 'All namespaces'), ...names.map((name) => el('option', { value: name }, name)));
    this.#namespace.value = names.includes(chosen) ? chosen : '';
  }

  /** Watches again (a fresh list) when the view comes back. */
  show(): void {
    this.#restart();
  }

  /** Closes the table's watch while another view is shown: see main.ts on the browser's six connections. */
  hide(): void {
    this.#watch?.abort();
  }

  select(type: ResourceType): void {
    this.#current = type;
    this.#renderPicker();
    this.#restart();
  }

  #renderPicker(): void {
    const needle = this.#search.value.toLowerCase();
    this.#picker.replaceChildren(
      ...this.#types
        .filter((t) => typeId(t).includes(needle) || t.kind.toLowerCase().includes(needle))
        .map((t) => el('li', { 'data-type': typeId(t), class: t === this.#current ? 'active' : '' }, t.name, ' ', el('small', {}, t.group === '' ? 'core' : t.group))),
    );
  }

  #restart(): void {
    this.#watch?.abort();
    this.#detail.classList.remove('open');
    this.#detailWatch = undefined;
    const type = this.#current;
    if (type === undefined) return;
    const watch = new AbortController();
    this.#watch = watch;
    const namespace = type.namespaced ? this.#namespace.value : '';
    this.#namespace.disabled = !type.namespaced;
    this.#title.textContent = type.kind;
    this.#table.reset([], type.namespaced && namespace === '');
    this.#count.textContent = '';
    const batcher = new FrameBatcher<RawWatchLine>((lines) => {
      if (watch.signal.aborted) return;
      const changes: { type: 'upsert' | 'delete'; row: TableRow }[] = [];
      for (const line of lines) {
        const table = line.event.object as Table;
        if (table.columnDefinitions !== undefined && table.columnDefinitions.length > 0) this.#table.setColumns(table.columnDefinitions);
        for (const row of table.rows ?? []) changes.push({ type: line.event.type === 'DELETED' ? 'delete' : 'upsert', row });
      }
      this.#table.apply(changes);
      this.#count.textContent = `${this.#table.size} ${type.name}`;
      this.#refreshDetail(changes);
    });
    void listAndWatch<Table>({
      path: collectionPath(type, namespace),
      query: { labelSelector: this.#selector.value.trim(), fieldSelector: this.#fields.value.trim() },
      accept: TABLE_ACCEPT,
      signal: watch.signal,
      onList: (table) => {
        batcher.clear();
        this.#table.reset(table.columnDefinitions ?? [], type.namespaced && namespace === '');
        this.#table.apply((table.rows ?? []).map((row) => ({ type: 'upsert' as const, row })));
        this.#count.textContent = `${this.#table.size} ${type.name}`;
      },
      onEvent: (line) => {
        if (line.event.type !== 'BOOKMARK') batcher.push(line);
      },
      onState: (state, detail) => {
        if (state === 'failed') this.#count.textContent = detail ?? 'failed';
        this.onState(state === 'live' || state === 'failed' ? 'live' : `${state}${detail === undefined ? '' : `: ${detail}`}`);
      },
    });
  }

  async #showObject(key: string, format: 'yaml' | 'json' = this.#detailWatch?.format ?? 'yaml'): Promise<void> {
    const type = this.#current;
    if (type === undefined) return;
    const [namespace, name] = key.split('/') as [string, string];
    const path = `${collectionPath(type, namespace)}/${encodeURIComponent(name)}`;
    let text: string;
    try {
      const object = await getJson<KubeObject>(path);
      text = format === 'yaml' ? toYaml(object) : JSON.stringify(object, null, 2);
    } catch (error) {
      text = `# ${error instanceof Error ? error.message : String(error)}`;
    }
    const previous = this.#detailWatch?.key === key && this.#detailWatch.format === format ? this.#detailWatch.text : undefined;
    this.#detailWatch = { key, format, text };
    const old = new Set(previous?.split('\n') ?? []);
    const pre = el('pre', { id: 'object-text' });
    for (const line of text.split('\n')) {
      const changed = previous !== undefined && !old.has(line);
      pre.append(changed ? el('mark', { class: 'changed' }, line) : line, '\n');
    }
    const yaml = el('button', { type: 'button', id: 'show-yaml' }, 'YAML');
    const json = el('button', { type: 'button', id: 'show-json' }, 'JSON');
    const close = el('button', { type: 'button' }, 'Close');
    yaml.addEventListener('click', () => void this.#showObject(key, 'yaml'));
    json.addEventListener('click', () => void this.#showObject(key, 'json'));
    close.addEventListener('click', () => {
      this.#detailWatch = undefined;
      this.#detail.classList.remove('open');
    });
    this.#detail.replaceChildren(el('div', { class: 'bar' }, el('strong', {}, key), yaml, json, close), pre);
    this.#detail.classList.add('open');
  }

  /** The open object follows its watch: fetched again when its row changes, changed lines marked. */
  #refreshDetail(changes: readonly { type: 'upsert' | 'delete'; row: TableRow }[]): void {
    const open = this.#detailWatch;
    if (open === undefined) return;
    const touched = changes.some((c) => `${c.row.object?.metadata?.namespace ?? ''}/${c.row.object?.metadata?.name ?? ''}` === open.key);
    if (touched) void this.#showObject(open.key, open.format);
  }
}
