import { stringify as toYaml } from 'yaml';
import { getJson, listAndWatch, TABLE_ACCEPT, versionOf, type KubeObject, type RawWatchLine } from './api.js';
import { collectionPath, typeId, type ResourceType } from './discovery.js';
import { el } from './dom.js';
import { FrameBatcher } from './frame-batcher.js';
import { objectEvents } from './object-events.js';
import { ObjectTable, type Column, type TableRow } from './object-table.js';
import { ownerTree } from './owner-tree.js';
import { followLog } from './pod-log.js';

interface Table {
  readonly kind?: string;
  readonly columnDefinitions?: readonly Column[];
  readonly rows?: readonly TableRow[];
  readonly metadata?: { resourceVersion?: string };
}

type Format = 'yaml' | 'json' | 'logs';

/** What the open object holds open: its Events watch, its log stream, the owner tree's reads. */
interface Panel {
  readonly key: string;
  readonly abort: AbortController;
  readonly extras: HTMLElement;
  log?: { readonly container: string; readonly element: HTMLElement; readonly abort: AbortController };
}

interface PodSpec {
  readonly spec?: { readonly containers?: readonly { readonly name: string }[]; readonly initContainers?: readonly { readonly name: string }[] };
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
  #detailWatch: { key: string; format: Format; text: string } | undefined;
  #panel: Panel | undefined;

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
    this.#closePanel();
  }

  #closePanel(): void {
    this.#panel?.abort.abort();
    this.#panel?.log?.abort.abort();
    this.#panel = undefined;
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
    this.#closePanel();
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
      // Only when it changes: text set again, even the same, is a DOM mutation and a layout.
      const count = `${this.#table.size} ${type.name}`;
      if (this.#count.textContent !== count) this.#count.textContent = count;
      this.#refreshDetail(changes);
      // A measuring hook (bench/dashboard/browser.ts: store to DOM): the versions now in the DOM,
      // and when the page read each one off the stream.
      const applied = (globalThis as { svcDashboardApplied?: (versions: string[], receivedAt: number[]) => void }).svcDashboardApplied;
      if (applied !== undefined) applied(lines.map((line) => versionOf(line.event.object) ?? ''), lines.map((line) => line.receivedAt));
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

  async #showObject(key: string, format: Format = this.#detailWatch?.format ?? 'yaml'): Promise<void> {
    const type = this.#current;
    if (type === undefined) return;
    const [namespace, name] = key.split('/') as [string, string];
    const path = `${collectionPath(type, namespace)}/${encodeURIComponent(name)}`;
    let text: string;
    let object: KubeObject | undefined;
    try {
      object = await getJson<KubeObject>(path);
      text = format === 'json' ? JSON.stringify(object, null, 2) : toYaml(object);
    } catch (error) {
      text = `# ${error instanceof Error ? error.message : String(error)}`;
    }
    if (this.#panel?.key !== key) {
      this.#closePanel();
      if (object !== undefined) this.#panel = this.#openPanel(key, object, namespace);
    }
    const panel = this.#panel;
    const previous = this.#detailWatch?.key === key && this.#detailWatch.format === format ? this.#detailWatch.text : undefined;
    this.#detailWatch = { key, format, text };
    const buttons: HTMLElement[] = [];
    const button = (id: string, label: string, onClick: () => void): void => {
      const b = el('button', { type: 'button', id, class: format === id.slice(5) ? 'active' : '' }, label);
      b.addEventListener('click', onClick);
      buttons.push(b);
    };
    button('show-yaml', 'YAML', () => void this.#showObject(key, 'yaml'));
    button('show-json', 'JSON', () => void this.#showObject(key, 'json'));
    const containers = type.name === 'pods' && type.group === '' ? [...((object as PodSpec | undefined)?.spec?.initContainers ?? []), ...((object as PodSpec | undefined)?.spec?.containers ?? [])].map((c) => c.name) : [];
    let main: HTMLElement;
    if (containers.length > 0) {
      const picker = el('select', { id: 'log-container' }, ...containers.map((c) => el('option', { value: c }, c)));
      const chosen = panel?.log?.container ?? containers[containers.length - 1]!;
      picker.value = chosen;
      picker.addEventListener('change', () => {
        panel?.log?.abort.abort();
        if (panel !== undefined) delete panel.log;
        void this.#showObject(key, 'logs');
      });
      button('show-logs', 'Logs', () => void this.#showObject(key, 'logs'));
      buttons.push(picker);
    }
    if (format === 'logs' && panel !== undefined && containers.length > 0) {
      const container = (this.#detail.querySelector<HTMLSelectElement>('#log-container')?.value || undefined) ?? panel.log?.container ?? containers[containers.length - 1]!;
      if (panel.log?.container !== container) {
        panel.log?.abort.abort();
        const abort = new AbortController();
        panel.log = { container, abort, element: followLog(namespace, name, container, abort.signal) };
      }
      main = panel.log.element;
    } else {
      const old = new Set(previous?.split('\n') ?? []);
      const pre = el('pre', { id: 'object-text' });
      for (const line of text.split('\n')) {
        const changed = previous !== undefined && !old.has(line);
        pre.append(changed ? el('mark', { class: 'changed' }, line) : line, '\n');
      }
      main = pre;
    }
    const close = el('button', { type: 'button', id: 'close-object' }, 'Close');
    close.addEventListener('click', () => {
      this.#detailWatch = undefined;
      this.#closePanel();
      this.#detail.classList.remove('open');
    });
    // Side by side, each scrolling on its own: the text (or the log) and the tree with the Events.
    const panes = el('div', { class: 'panes' }, el('div', { class: 'object-main' }, main), ...(panel === undefined ? [] : [el('div', { class: 'object-side' }, panel.extras)]));
    this.#detail.replaceChildren(el('div', { class: 'bar' }, el('strong', {}, key), ...buttons, close), panes);
    this.#detail.classList.add('open');
  }

  /** The open object's owner tree (read once) and Events (a watch), until the panel closes. */
  #openPanel(key: string, object: KubeObject, namespace: string): Panel {
    const abort = new AbortController();
    const tree = el('div', { id: 'owner-tree-holder' }, 'reading…');
    const uid = object.metadata?.uid ?? '';
    const extras = el('div', {}, el('h4', {}, 'Owner tree'), tree, el('h4', {}, 'Events'), objectEvents(uid, namespace, abort.signal));
    ownerTree(object, this.#types, abort.signal).then(
      (element) => tree.replaceChildren(element),
      (error: unknown) => {
        if (!abort.signal.aborted) tree.textContent = error instanceof Error ? error.message : String(error);
      },
    );
    return { key, abort, extras };
  }

  /** The open object follows its watch: fetched again when its row changes, changed lines marked. */
  #refreshDetail(changes: readonly { type: 'upsert' | 'delete'; row: TableRow }[]): void {
    const open = this.#detailWatch;
    if (open === undefined) return;
    const touched = changes.some((c) => `${c.row.object?.metadata?.namespace ?? ''}/${c.row.object?.metadata?.name ?? ''}` === open.key);
    if (touched) void this.#showObject(open.key, open.format);
  }
}
