import type { ResourceRegistry, ResourceType } from '../api/index.js';
import { subresourceEntries, virtualResources } from './subresources/index.js';

/**
 * The legacy discovery documents kubectl and client-go read to map kinds to resources:
 * `/api`, `/apis`, `/apis/<group>`, and the resource lists of each group version.
 * (Aggregated discovery (v2) is not served: clients fall back to these.)
 */

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(registry: ResourceRegistry, name: string) {
  const group = registry.groups().find((g) => g.name === name);
  if (!group) return undefined;
  const versions = group.versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return {
    name,
    versions,
    preferredVersion: { groupVersion: `${name}/${group.preferredVersion}`, version: group.preferredVersion },
  };
}

export function apiGroupList(registry: ResourceRegistry) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.name !== '')
      .map((g) => groupDocument(registry, g.name)!),
  };
}

export function apiGroup(registry: ResourceRegistry, name: string) {
  const doc = name === '' ? undefined : groupDocument(registry, name);
  return doc && { kind: 'APIGroup', apiVersion: 'v1', ...doc };
}

function resourceEntry(type: ResourceType) {
  return {
    name: type.resource,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs,
    ...(type.shortNames.length ? { shortNames: type.shortNames } : {}),
    ...(type.categories?.length ? { categories: type.categories } : {}),
  };
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string) {
  const types = registry.resourcesOf(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: [...types.flatMap((type) => [resourceEntry(type), ...subresourceEntries(type)]), ...virtualResources(group, version, registry)],
  };
}

/**
 * `/version`: the Kubernetes API level svc answers as, and svc's own version. 1.33 is within
 * kubectl 1.32's supported skew, so the kubectl on this machine talks to it without warnings.
 */
export function versionInfo(svcVersion: string) {
  return {
    major: '1',
    minor: '33',
    gitVersion: `v1.33.0+svc-${svcVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '',
    goVersion: '',
    compiler: 'node',
    platform: `${process.platform}/${process.arch}`,
  };
}
