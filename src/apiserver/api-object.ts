import type { ObjectMeta, ResourceType } from '../api/index.js';

/** An API object as the server handles it: typed metadata, everything else as the client sent it. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** `apiVersion` of a type on the wire: `v1` for the core group, `<group>/<version>` otherwise. */
export const apiVersionOf = (type: Pick<ResourceType, 'group' | 'version'>) =>
  type.group === '' ? type.version : `${type.group}/${type.version}`;
