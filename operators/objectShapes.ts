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

/**
 * A change of one object: the one event shape informers emit, watches emit, and the object
 * operators read. `object` is the object now (on a delete, its last state); `old` is the object
 * before an update, absent on every other event (add, delete, resync, a watch event). Informer
 * events (`{ type: 'updated', old, object }`, `{ type: 'added', object }`, ...) and watch events
 * (`{ type: 'MODIFIED', object }`) fit as they are.
 */
export interface ChangeEvent<T extends ObjectLike = ObjectLike> {
  readonly type?: string;
  readonly object: T;
  readonly old?: T | undefined;
}

/** What `toKey` and `toOwnerKey` accept: an object or a change event. */
export type KeySource = ObjectLike | ChangeEvent;

/** The objects an item carries: itself, or `object` then `old` (distinct ones only). */
export function objectsOf(item: KeySource): ObjectLike[] {
  if ('metadata' in item && item.metadata !== undefined) return [item];
  const event = item as Partial<ChangeEvent>;
  if (event.object === undefined) return [];
  return event.old !== undefined && event.old !== event.object ? [event.object, event.old] : [event.object];
}

/** `namespace/name`, or `name` for a cluster-scoped object; undefined when the object has no name. */
export function keyOf(meta: ObjectMetaLike | undefined): string | undefined {
  const name = meta?.name;
  if (name === undefined || name === '') return undefined;
  const namespace = meta?.namespace;
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}
