// The shapes the object operators read. Structural on purpose: operators/ imports only rxjs and ix,
// and every svc object (src/api `KubeObject`) fits these types.

/** An owner reference as the object operators read it (`metadata.ownerReferences[]`). */
export interface OwnerReferenceLike {
  readonly kind: string;
  readonly name: string;
  readonly apiVersion?: string;
  readonly uid?: string;
  readonly controller?: boolean | undefined;
}

/** The metadata fields the object operators read. */
export interface ObjectMetaLike {
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly generation?: number | undefined;
  readonly resourceVersion?: string | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  readonly ownerReferences?: readonly OwnerReferenceLike[] | undefined;
}

/** Anything with object metadata: every stored svc object. */
export interface ObjectLike {
  readonly metadata?: ObjectMetaLike | undefined;
}

/** An informer notification with the object before and after: `old` is absent on add, `new` on delete. */
export interface UpdateEvent<T extends ObjectLike = ObjectLike> {
  readonly old?: T | undefined;
  readonly new?: T | undefined;
}

/** A watch event carrying one object (`{ type: 'ADDED', object }`). */
export interface ObjectEvent<T extends ObjectLike = ObjectLike> {
  readonly object: T;
}

/** What `toKey` and `toOwnerKey` accept: an object, a watch event or an update event. */
export type KeySource = ObjectLike | ObjectEvent | UpdateEvent;

/** The objects an item carries: itself, `object`, or `new` then `old` (distinct ones only). */
export function objectsOf(item: KeySource): ObjectLike[] {
  if ('metadata' in item && item.metadata !== undefined) return [item];
  if ('object' in item && item.object !== undefined) return [item.object];
  const update = item as UpdateEvent;
  if (update.new !== undefined && update.old !== undefined && update.new !== update.old) return [update.new, update.old];
  const one = update.new ?? update.old;
  return one === undefined ? [] : [one];
}

/** `namespace/name`, or `name` for a cluster-scoped object; undefined when the object has no name. */
export function keyOf(meta: ObjectMetaLike | undefined): string | undefined {
  const name = meta?.name;
  if (name === undefined || name === '') return undefined;
  const namespace = meta?.namespace;
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}
