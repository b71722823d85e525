import { getJson, type KubeObject } from './api.js';
import { collectionPath, type ResourceType } from './discovery.js';
import { el } from './dom.js';

interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

interface Meta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly ownerReferences?: readonly OwnerReference[];
}

interface Node {
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** Metadata only: a list of pods costs its names and references, not its specs. */
const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json';
/** Kinds that own others in practice (workloads and what they make); their lists are read to find children. */
const CHILD_TYPES = new Set(['deployments.apps', 'replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'controllerrevisions.apps', 'jobs.batch', 'pods', 'endpointslices.discovery.k8s.io', 'persistentvolumeclaims', 'replicationcontrollers']);
/** How far up and down the tree goes. */
const DEPTH = 4;

/**
 * A read tried again a few times before it counts as failed: the tree is read once, so a
 * transient refusal (a loaded server's 429 or a reset connection) would otherwise leave a branch
 * missing until the object is opened again.
 */
async function patiently<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 4 || signal.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}

function typeOf(types: readonly ResourceType[], apiVersion: string, kind: string): ResourceType | undefined {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return types.find((t) => t.group === group && t.kind === kind);
}

const ownerOf = (meta: Meta): OwnerReference | undefined => meta.ownerReferences?.find((r) => r.controller === true) ?? meta.ownerReferences?.[0];

/**
 * The object's owner tree: its owners up to the top (by each one's controller reference, read
 * by GET), then everything under the top owner, found by the owner references of the objects of
 * the usual owning and owned kinds in its namespace (lists of metadata only). Read once when the
 * object is opened: ownership rarely changes, and the Events below are live.
 */
export async function ownerTree(object: KubeObject, types: readonly ResourceType[], signal: AbortSignal): Promise<HTMLElement> {
  const meta = object.metadata as Meta;
  const namespace = meta.namespace ?? '';
  const self: Node = { kind: object.kind ?? '', name: meta.name ?? '', uid: meta.uid ?? '' };
  // Up: self's owner, its owner, ...
  let top = self;
  let current: Meta = meta;
  for (let level = 0; level < DEPTH; level++) {
    const ref = ownerOf(current);
    if (ref === undefined) break;
    top = { kind: ref.kind, name: ref.name, uid: ref.uid };
    const type = typeOf(types, ref.apiVersion, ref.kind);
    if (type === undefined) break;
    try {
      current = (await patiently(() => getJson<KubeObject>(`${collectionPath(type, namespace)}/${encodeURIComponent(ref.name)}`, 'application/json', signal), signal)).metadata as Meta;
    } catch {
      break; // the owner is gone (or unreadable): the tree starts at its reference
    }
  }
  // Down: children by owner uid, among the namespace's objects of the usual kinds.
  const children = new Map<string, Node[]>();
  if (namespace !== '') {
    const candidates = types.filter((t) => t.namespaced && CHILD_TYPES.has(t.group === '' ? t.name : `${t.name}.${t.group}`));
    const lists = await Promise.all(
      candidates.map((t) =>
        patiently(() => getJson<{ items?: (KubeObject & { metadata?: Meta })[] }>(collectionPath(t, namespace), METADATA_ACCEPT, signal), signal).then(
          (list) => ({ kind: t.kind, items: list.items ?? [] }),
          () => ({ kind: t.kind, items: [] }),
        ),
      ),
    );
    for (const { kind, items } of lists) {
      for (const item of items) {
        const m = item.metadata as Meta | undefined;
        const ref = m === undefined ? undefined : ownerOf(m);
        if (ref === undefined || m?.uid === undefined) continue;
        const list = children.get(ref.uid) ?? [];
        list.push({ kind, name: m.name ?? '', uid: m.uid });
        children.set(ref.uid, list);
      }
    }
  }
  const render = (node: Node, depth: number): HTMLElement => {
    const item = el('li', { class: node.uid === self.uid ? 'self' : '', 'data-uid': node.uid, 'data-node': `${node.kind}/${node.name}` }, el('span', {}, `${node.kind} ${node.name}`));
    const under = depth < DEPTH ? (children.get(node.uid) ?? []).sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name)) : [];
    if (under.length > 0) item.append(el('ul', {}, ...under.map((child) => render(child, depth + 1))));
    return item;
  };
  return el('ul', { class: 'tree', id: 'owner-tree' }, render(top, 0));
}
