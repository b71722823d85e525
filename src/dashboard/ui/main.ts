// The dashboard page: discovery (kept live by a CustomResourceDefinition watch), the resource
// tables and the watch inspector. Everything on it is a watch; nothing polls.
import { listAndWatch, type KubeObject } from './api.js';
import { ControllersView } from './controllers-view.js';
import { discover, typeId } from './discovery.js';
import { FrameBatcher } from './frame-batcher.js';
import { InspectorView } from './inspector-view.js';
import { OverviewView } from './overview-view.js';
import { ResourceView } from './resource-view.js';

const app = document.getElementById('app')!;
const connection = document.getElementById('connection')!;
const setState = (state: string): void => {
  connection.textContent = state;
  connection.dataset['state'] = state.split(':')[0]!;
};

const life = new AbortController();
window.addEventListener('pagehide', () => life.abort());

const resources = new ResourceView(setState);
const inspector = new InspectorView();
const overview = new OverviewView();
const controllers = new ControllersView();
// Only the view on screen holds watches. A browser opens at most six HTTP/1.1 connections to one
// origin and each open watch holds one: the two page-wide watches (namespaces, definitions) and
// the busiest view (the overview's three) leave one for the reads in between. Several views live
// at once need one connection carrying many watches (not built: docs/dashboard.md).
const views = { resources, inspector, overview, controllers } as const;
let shown: keyof typeof views = 'resources';
app.append(resources.element);

for (const button of document.querySelectorAll<HTMLButtonElement>('nav button[data-view]')) {
  button.addEventListener('click', () => {
    const name = button.dataset['view'] as keyof typeof views;
    if (name === shown) return;
    views[shown].hide();
    shown = name;
    views[name].show();
    app.replaceChildren(views[name].element);
    for (const other of document.querySelectorAll('nav button')) other.classList.toggle('active', other === button);
  });
}

/**
 * The types of the CustomResourceDefinitions the CRD watch has seen Established, by typeId. The
 * CRD's ADDED event can reach the page before the API server serves its type, and under load two
 * asks overlap: while discovery lacks an Established CRD's type, the page asks again.
 */
const establishedTypes = new Set<string>();
let discoveryRetry: ReturnType<typeof setTimeout> | undefined;
let discoveryRetries = 0;
const DISCOVERY_RETRY_MS = 250;
/** Enough for seconds of a loaded server's lag; a CRD discovery never shows is left after that. */
const DISCOVERY_RETRIES = 40;

/** The latest ask: an earlier ask answered after a later one (a slow server) must not win. */
let discoveryAsk = 0;

async function refreshTypes(): Promise<void> {
  const ask = ++discoveryAsk;
  try {
    const types = await discover();
    if (ask !== discoveryAsk) return;
    resources.setTypes(types);
    inspector.setTypes(types);
    const shown = new Set(types.map(typeId));
    const missing = [...establishedTypes].some((id) => !shown.has(id));
    if (missing && discoveryRetry === undefined && discoveryRetries < DISCOVERY_RETRIES) {
      discoveryRetries++;
      discoveryRetry = setTimeout(() => {
        discoveryRetry = undefined;
        void refreshTypes();
      }, DISCOVERY_RETRY_MS);
    }
  } catch (error) {
    setState(`discovery failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

await refreshTypes();

// Namespaces for the filter, live.
const namespaces = new Set<string>();
const namespaceBatch = new FrameBatcher<void>(() => resources.setNamespaces([...namespaces].sort()));
void listAndWatch<{ items?: KubeObject[]; metadata?: { resourceVersion?: string } }>({
  path: '/api/v1/namespaces',
  query: {},
  accept: 'application/json',
  signal: life.signal,
  onList: (list) => {
    namespaces.clear();
    for (const item of list.items ?? []) if (item.metadata?.name !== undefined) namespaces.add(item.metadata.name);
    namespaceBatch.push();
  },
  onEvent: ({ event }) => {
    const name = event.object.metadata?.name;
    if (name === undefined || event.type === 'BOOKMARK') return;
    if (event.type === 'DELETED') namespaces.delete(name);
    else namespaces.add(name);
    namespaceBatch.push();
  },
});

// A CustomResourceDefinition created, changed or gone changes what discovery says: ask again.
let seenFirstList = false;
const discoveryBatch = new FrameBatcher<void>(() => void refreshTypes());
void listAndWatch<{ items?: KubeObject[]; metadata?: { resourceVersion?: string } }>({
  path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  query: {},
  accept: 'application/json',
  signal: life.signal,
  onList: (list) => {
    establishedTypes.clear();
    for (const crd of list.items ?? []) noteCrd(crd, false);
    if (seenFirstList) discoveryBatch.push();
    seenFirstList = true;
  },
  onEvent: ({ event }) => {
    if (event.type === 'BOOKMARK') return;
    noteCrd(event.object, event.type === 'DELETED');
    discoveryRetries = 0;
    discoveryBatch.push();
  },
});

/** Keeps `establishedTypes` current from a CRD (its served versions' type, once Established). */
function noteCrd(crd: KubeObject, deleted: boolean): void {
  const spec = (crd as { spec?: { group?: string; names?: { plural?: string } } }).spec;
  const conditions = (crd as { status?: { conditions?: { type?: string; status?: string }[] } }).status?.conditions ?? [];
  if (spec?.group === undefined || spec.names?.plural === undefined) return;
  const id = `${spec.names.plural}.${spec.group}`;
  if (!deleted && conditions.some((c) => c.type === 'Established' && c.status === 'True')) establishedTypes.add(id);
  else establishedTypes.delete(id);
}
