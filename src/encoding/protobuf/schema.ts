import type protobuf from 'protobufjs';
import { upstreamGroupAlias } from '../../api/index.js';
import { LazyProtoRoot } from './lazy-root.js';
import { PROTO_SOURCES } from './sources.js';

/** The messages of docs/proto, each parsed when first looked up (lazy-root.ts says why). */
export const protoRoot = new LazyProtoRoot(Object.values(PROTO_SOURCES));

const packageOf = (group: string): string => {
  switch (group) {
    case '':
      return 'svc.core.v1';
    case 'apps':
      return 'svc.apps.v1';
    case 'batch':
      return 'svc.batch.v1';
    case 'meta.svc.io':
      return 'svc.meta.v1';
    default:
      return 'svc.groups';
  }
};

/** The group of an apiVersion (`apps/v1` → apps, `v1` → core, upstream names → svc's). */
export const groupOf = (apiVersion: string) => {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : upstreamGroupAlias(apiVersion.slice(0, slash));
};

/** The message of a kind (an object, a `<Kind>List`, a view or a Status); undefined when svc has none. */
export function messageOf(apiVersion: string, kind: string): protobuf.Type | undefined {
  const key = `${apiVersion}\u0000${kind}`;
  if (byKind.has(key)) return byKind.get(key);
  const type = lookupMessage(apiVersion, kind);
  if (byKind.size < 10_000) byKind.set(key, type);
  return type;
}
const byKind = new Map<string, protobuf.Type | undefined>();

/** Group versions whose kinds have a package of their own (their names are taken by another version's). */
const VERSION_PACKAGES: Readonly<Record<string, string>> = { 'autoscaling/v1': 'svc.autoscaling.v1' };

function lookupMessage(apiVersion: string, kind: string): protobuf.Type | undefined {
  const group = groupOf(apiVersion);
  const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  const pkg = VERSION_PACKAGES[`${group}/${version}`] ?? packageOf(group);
  const name = kind === 'Status' && group === '' ? 'svc.meta.v1.Status' : `${pkg}.${kind}`;
  return protoRoot.type(name);
}

export const typeMetaType = protoRoot.lookupType('svc.runtime.TypeMeta');
export const unknownType = protoRoot.lookupType('svc.runtime.Unknown');
export const watchEventType = protoRoot.lookupType('svc.meta.v1.WatchEvent');
export const listMetaType = protoRoot.lookupType('svc.meta.v1.ListMeta');
