/**
 * The names `--controllers` understands: every control loop the manager knows, the short aliases
 * Kubernetes accepts for them (so a kube-controller-manager command line keeps its meaning), and
 * which ones `*` leaves off. A name here is not a promise that the loop is built: the registry
 * (loop-registry.ts) says which ones run; the others are accepted, reported and skipped.
 */

/** Every controller, by canonical name, with its aliases. Order: as `--help` lists them. */
export const CONTROLLERS = {
  'attachdetach-controller': ['attachdetach', 'persistentvolume-attach-detach-controller'],
  'bootstrap-signer-controller': ['bootstrapsigner'],
  'certificatesigningrequest-approving-controller': ['csrapproving'],
  'certificatesigningrequest-cleaner-controller': ['csrcleaner'],
  'certificatesigningrequest-signing-controller': ['csrsigning'],
  'cloud-node-lifecycle-controller': ['cloud-node-lifecycle'],
  'clusterrole-aggregation-controller': ['clusterrole-aggregation'],
  'cronjob-controller': ['cronjob'],
  'daemonset-controller': ['daemonset'],
  'deployment-controller': ['deployment'],
  'device-taint-eviction-controller': [],
  'disruption-controller': ['disruption'],
  'endpoints-controller': ['endpoint'],
  'endpointslice-controller': ['endpointslice'],
  'endpointslice-mirroring-controller': ['endpointslicemirroring'],
  'ephemeral-volume-controller': ['ephemeral-volume'],
  'garbage-collector-controller': ['garbagecollector', 'garbage-collector'],
  'horizontal-pod-autoscaler-controller': ['horizontalpodautoscaling'],
  'job-controller': ['job'],
  'legacy-serviceaccount-token-cleaner-controller': ['legacy-service-account-token-cleaner'],
  'namespace-controller': ['namespace'],
  'node-ipam-controller': ['nodeipam'],
  'node-lifecycle-controller': ['nodelifecycle'],
  'node-route-controller': ['route'],
  'persistentvolume-binder-controller': ['persistentvolume-binder'],
  'persistentvolume-expander-controller': ['persistentvolume-expander'],
  'persistentvolume-protection-controller': ['pv-protection'],
  'persistentvolumeclaim-protection-controller': ['pvc-protection'],
  'pod-garbage-collector-controller': ['podgc'],
  'replicaset-controller': ['replicaset'],
  'replicationcontroller-controller': ['replicationcontroller'],
  'resourcequota-controller': ['resourcequota'],
  'root-ca-certificate-publisher-controller': ['root-ca-cert-publisher'],
  'service-lb-controller': ['service'],
  'serviceaccount-controller': ['serviceaccount'],
  'serviceaccount-token-controller': ['serviceaccount-token'],
  'statefulset-controller': ['statefulset'],
  'taint-eviction-controller': [],
  'token-cleaner-controller': ['tokencleaner'],
  'ttl-after-finished-controller': ['ttl-after-finished'],
  'ttl-controller': ['ttl'],
  // The second alias is svc's spelling of the loop's name (docs/controller-manager.md).
  'validatingadmissionpolicy-status-controller': ['validatingadmissionpolicy-status', 'validating-admission-policy-status'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

export type ControllerName = keyof typeof CONTROLLERS;

export const CONTROLLER_NAMES = Object.keys(CONTROLLERS) as readonly ControllerName[];

/** What `*` does not turn on (as kube: the bootstrap-token pair is for clusters that opt in). */
export const DISABLED_BY_DEFAULT: ReadonlySet<ControllerName> = new Set(['bootstrap-signer-controller', 'token-cleaner-controller']);

const byAlias: ReadonlyMap<string, ControllerName> = new Map(
  CONTROLLER_NAMES.flatMap((name) => [[name, name] as const, ...CONTROLLERS[name].map((alias) => [alias, name] as const)]),
);

/** The canonical name of `name` or of one of its aliases; undefined when unknown. */
export function canonicalControllerName(name: string): ControllerName | undefined {
  return byAlias.get(name);
}

/** A controller name a module may bring: lowercase letters, digits, `-` and `.`, as Kubernetes names. */
const MODULE_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** What is wrong with a name a controller module gives a loop, or undefined. */
export function invalidModuleControllerName(name: string): string | undefined {
  if (!MODULE_NAME.test(name) || name.length > 253) return `${JSON.stringify(name)} is not a controller name (lowercase letters, digits, '-' and '.')`;
  if (canonicalControllerName(name) !== undefined) return `${JSON.stringify(name)} is a built-in controller's name or alias`;
  return undefined;
}

/**
 * What is wrong with the form of a `--controllers` list, or undefined: every item is `*`, a name
 * or `-name`. Whether a name is known is checked once the controller modules are loaded (a
 * module's names are not known before).
 */
export function invalidControllerItems(items: readonly string[]): string | undefined {
  for (const item of items) {
    if (item === '*') continue;
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (canonicalControllerName(name) === undefined && !MODULE_NAME.test(name)) return `${JSON.stringify(item)} is not *, a controller name or -name`;
  }
  return undefined;
}

/** What is wrong with a `--controllers` list, or undefined: every item is `*`, a known name (built-in or in `extra`) or `-name`. */
export function invalidControllerSelection(items: readonly string[], extra: readonly string[] = []): string | undefined {
  const others = new Set(extra);
  for (const item of items) {
    if (item === '*') continue;
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (canonicalControllerName(name) === undefined && !others.has(name)) return `unknown controller ${JSON.stringify(name)} (see --help for the names)`;
  }
  return undefined;
}

/**
 * The controllers a `--controllers` list turns on: the built-in ones in table order, then those
 * of controller modules (`extra`) in module order. As kube: an explicit `-name` wins, then an
 * explicit `name`, then `*` (the on-by-default ones, and every module's); without `*` only what
 * is named runs. Throws RangeError on an unknown name (the flag's validation catches it first).
 */
export function selectControllers(items: readonly string[]): ControllerName[];
export function selectControllers(items: readonly string[], extra: readonly string[]): string[];
export function selectControllers(items: readonly string[], extra: readonly string[] = []): string[] {
  const problem = invalidControllerSelection(items, extra);
  if (problem) throw new RangeError(problem);
  const star = items.includes('*');
  const on = new Set<string>();
  const off = new Set<string>();
  for (const item of items) {
    if (item === '*') continue;
    const name = item.startsWith('-') ? item.slice(1) : item;
    (item.startsWith('-') ? off : on).add(canonicalControllerName(name) ?? name);
  }
  const builtin = CONTROLLER_NAMES.filter((name) => !off.has(name) && (on.has(name) || (star && !DISABLED_BY_DEFAULT.has(name))));
  return [...builtin, ...extra.filter((name) => !off.has(name) && (on.has(name) || star))];
}
