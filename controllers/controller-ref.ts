import type { KubeObject, OwnerReference } from '../src/api/index.js';

/** What an owner reference says of its owner's type: the group and version (`apiVersion`) and the kind. */
export interface OwnerType {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `group/version`, or `version` for the core group. */
export const apiVersionOf = (type: Pick<OwnerType, 'group' | 'version'>): string => (type.group === '' ? type.version : `${type.group}/${type.version}`);

/** The group of an `apiVersion`: the part before the `/`, `''` for the core group (`v1`). */
export const groupOfApiVersion = (apiVersion: string): string => {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
};

/**
 * The owner reference a controller puts on what it creates: the owner's apiVersion, kind, name
 * and uid, `controller: true` (there is at most one controller per object, and controllers leave
 * objects controlled by another alone) and `blockOwnerDeletion: true` (a foreground deletion of
 * the owner waits for this object). The type comes from `type` when given, else from the owner's
 * own `apiVersion` and `kind` (objects read from the server carry them).
 *
 * @example
 * await client.create(builtin.configMaps, { metadata: { generateName: 'web-', ownerReferences: [controllerRef(widget)] } });
 */
export function controllerRef(owner: KubeObject, type?: OwnerType): OwnerReference {
  const apiVersion = type ? apiVersionOf(type) : owner.apiVersion;
  const kind = type ? type.kind : owner.kind;
  const { name, uid } = owner.metadata;
  if (!apiVersion || !kind) throw new TypeError('controllerRef needs the owner\'s apiVersion and kind: pass its type');
  if (!name || !uid) throw new TypeError('controllerRef needs an owner that exists: metadata.name and metadata.uid');
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

/** The object's controller: its owner reference with `controller: true`, if any (there is at most one). */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((reference) => reference.controller === true);
}

/** Whether `owner` (by uid) is the controller of `object`. */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && controllerOf(object)?.uid === uid;
}
