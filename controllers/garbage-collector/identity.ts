import type { KubeObject, OwnerReference } from '../../src/api/index.js';

/** One object as the garbage collector names it: what an owner reference says, plus its namespace. */
export interface Identity {
  readonly apiVersion: string;
  readonly kind: string;
  /** `''` for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

// Names, namespaces, kinds and uids never hold a space; apiVersion neither.
const SEP = ' ';

/** The work-queue key of an identity: one key per object version of a uid. */
export const identityKey = (id: Identity): string => [id.apiVersion, id.kind, id.namespace, id.name, id.uid].join(SEP);

export function parseIdentityKey(key: string): Identity {
  const [apiVersion = '', kind = '', namespace = '', name = '', uid = ''] = key.split(SEP);
  return { apiVersion, kind, namespace, name, uid };
}

export const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
};

export function identityOf(object: KubeObject, type: { group: string; version: string; kind: string }): Identity {
  return {
    apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
    kind: type.kind,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
    uid: object.metadata.uid ?? '',
  };
}

/** The owner a reference names; a namespaced owner lives in its dependent's namespace. */
export function ownerIdentity(ref: OwnerReference, dependentNamespace: string, ownerNamespaced: boolean): Identity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ownerNamespaced ? dependentNamespace : '', name: ref.name, uid: ref.uid };
}

export const ownerReferences = (object: KubeObject): readonly OwnerReference[] => object.metadata.ownerReferences ?? [];
