import { upstreamGroupAlias, upstreamGroupName, type ApiGroupVersions, type ResourceRegistry, type ResourceType } from '../api/index.js';
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

/**
 * A group's document under the name the client used: svc's own (`rbac.authorization.svc.io`) or
 * the upstream one (`rbac.authorization.k8s.io`), which serves the same types and objects.
 */
function groupDocument(registry: ResourceRegistry, name: string) {
  const group = registry.groups().find((g) => g.name === upstreamGroupAlias(name));
  if (!group) return undefined;
  const versions = group.versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return {
    name,
    versions,
    preferredVersion: { groupVersion: `${name}/${group.preferredVersion}`, version: group.preferredVersion },
  };
}

/**
 * Groups whose upstream name comes first: kubectl commands that act on their objects by type
 * accept only the upstream group (`kubectl certificate approve` and `deny` refuse a
 * `certificates.svc.io` object), and they name the resource bare, which resolves by this order.
 */
const UPSTREAM_FIRST: ReadonlySet<string> = new Set(['certificates.svc.io']);

/**
 * Every group, svc's names first (but for UPSTREAM_FIRST), then each `*.svc.io` group again under its upstream
 * `*.k8s.io` name, so that unmodified Kubernetes manifests and clients find the kinds they name.
 * (A resource both serve resolves to svc's name first, by this order.) The groups of aggregated
 * servers (`aggregated`, docs/aggregation.md) come last.
 */
export function apiGroupList(registry: ResourceRegistry, aggregated: readonly ApiGroupVersions[] = []) {
  const own = registry
    .groups()
    .filter((g) => g.name !== '')
    .map((g) => g.name);
  // A group kubectl handles only under its upstream name swaps places with it (see UPSTREAM_FIRST).
  const first = own.map((name) => (UPSTREAM_FIRST.has(name) ? upstreamGroupName(name) : name));
  const second = own.map((name) => (UPSTREAM_FIRST.has(name) ? name : upstreamGroupName(name))).filter((name, i) => name !== first[i]);
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...[...first, ...second].map((name) => groupDocument(registry, name)!), ...aggregated.map(aggregatedGroupDocument)],
  };
}

/** A group aggregated servers serve, as `/apis` lists it. */
export function aggregatedGroupDocument(group: ApiGroupVersions) {
  return {
    name: group.name,
    versions: group.versions.map((version) => ({ groupVersion: `${group.name}/${version}`, version })),
    preferredVersion: { groupVersion: `${group.name}/${group.preferredVersion}`, version: group.preferredVersion },
  };
}

export function apiGroup(registry: ResourceRegistry, name: string) {
  const doc = name === '' ? undefined : groupDocument(registry, name);
  return doc && { kind: 'APIGroup', apiVersion: 'v1', ...doc };
}

/**
 * A resource's discovery entry. `shortNames: false` under a group's upstream name: kubectl
 * collects short names from every group and warns (`short name "crd" could also match lower
 * priority resource …`) when one names resources of two groups, so each short name is advertised
 * once, under svc's own name. That is the group kubectl resolves the full resource name to as
 * well (discovery lists svc's names first), so `crd` and `customresourcedefinitions` agree.
 */
function resourceEntry(type: ResourceType, shortNames = true) {
  return {
    name: type.resource,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs,
    ...(shortNames && type.shortNames.length ? { shortNames: type.shortNames } : {}),
    ...(type.categories?.length ? { categories: type.categories } : {}),
  };
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string) {
  const own = upstreamGroupAlias(group);
  const types = registry.resourcesOf(own, version);
  if (types.length === 0) return undefined;
  const shortNames = own === group;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: [...types.flatMap((type) => [resourceEntry(type, shortNames), ...subresourceEntries(type)]), ...virtualResources(group, version, registry)],
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
