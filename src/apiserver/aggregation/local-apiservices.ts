import { apiServiceType, upstreamGroupName, type ApiGroupVersions, type APIService, type ResourceRegistry } from '../../api/index.js';
import { isStorageError, type Store } from '../../storage/index.js';
import { apiVersionOf, type ApiObject } from '../api-object.js';
import { collectionPrefix, objectKey } from '../object-keys.js';
import { decodeStored, encodeForStorage } from '../storage-codec.js';
import { prepareForCreate } from '../writes/prepare.js';
import { jsonEqual } from '../writes/json-value.js';
import { availableCondition } from './conditions.js';

/**
 * Local APIServices: one per group-version the API server serves itself (`v1.` for the core
 * group, `v1.apps`, `v1.rbac.authorization.svc.io` and its upstream name
 * `v1.rbac.authorization.k8s.io`, ..., and every CustomResourceDefinition's group-versions), with
 * no `spec.service` and Available=True (reason Local). kube-aggregator's autoregistration keeps
 * these; here the API server writes them straight to the store at start and whenever the
 * registry changes (a CRD is established or goes), and removes the ones it wrote for
 * group-versions no longer served. APIServices without its label are never touched.
 */

/** The label on the APIServices the server manages (kube-aggregator's, with its value for synced ones). */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/**
 * Upstream's priorities for the groups svc serves (kube-apiserver's table), so that
 * `kubectl get apiservices` and the order of groups read as they do against Kubernetes.
 * Groups not listed (CustomResourceDefinitions' groups) get 1000 / 100, below every built-in.
 */
const PRIORITIES: Readonly<Record<string, readonly [number, number]>> = {
  '': [18000, 1],
  apps: [17800, 15],
  events: [17750, 15],
  authentication: [17700, 15],
  authorization: [17600, 15],
  autoscaling: [17500, 30],
  batch: [17400, 15],
  certificates: [17300, 15],
  policy: [17100, 15],
  'rbac.authorization': [17000, 15],
  admissionregistration: [16700, 15],
  apiextensions: [16700, 15],
  coordination: [16500, 15],
  discovery: [16200, 15],
  apiregistration: [18000, 15],
  // metrics-server's APIService asks these.
  metrics: [100, 100],
};
const CUSTOM_PRIORITY = [1000, 100] as const;

/** The group's name without its `.svc.io`/`.k8s.io` suffix, the key of `PRIORITIES`. */
const baseName = (group: string) => group.replace(/\.(svc|k8s)\.io$/, '');

/** Every APIService the registry's group-versions call for, keyed by name. */
export function desiredLocalApiServices(groups: readonly ApiGroupVersions[], builtinGroups: ReadonlySet<string>): Map<string, APIService> {
  const wanted = new Map<string, APIService>();
  for (const group of groups) {
    const [groupPriorityMinimum, versionPriority] = builtinGroups.has(group.name) ? (PRIORITIES[baseName(group.name)] ?? CUSTOM_PRIORITY) : CUSTOM_PRIORITY;
    const names = new Set([group.name, upstreamGroupName(group.name)]);
    for (const name of names) {
      for (const version of group.versions) {
        const apiService: APIService = {
          apiVersion: apiVersionOf(apiServiceType),
          kind: apiServiceType.kind,
          metadata: { name: `${version}.${name}`, labels: { [AUTOMANAGED_LABEL]: builtinGroups.has(group.name) ? 'onstart' : 'true' } },
          spec: { group: name, version, groupPriorityMinimum, versionPriority },
        };
        wanted.set(apiService.metadata.name!, apiService);
      }
    }
  }
  return wanted;
}

/** Keeps the local APIServices in the store in line with the registry. */
export class LocalApiServices {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #builtinGroups: ReadonlySet<string>;
  #queue: Promise<void> = Promise.resolve();
  #pending = false;
  #stopListening: (() => void) | undefined;
  #stopped = false;

  constructor(options: { store: Store; registry: ResourceRegistry }) {
    this.#store = options.store;
    this.#registry = options.registry;
    // The groups served before any CRD is: their APIServices carry upstream's priorities.
    this.#builtinGroups = new Set(options.registry.groups().map((g) => g.name));
  }

  /** Writes what is missing now, then follows the registry. */
  async start(): Promise<void> {
    await this.sync();
    this.#stopListening = this.#registry.onChange(() => this.#schedule());
  }

  stop(): void {
    this.#stopped = true;
    this.#stopListening?.();
  }

  /** Resolves once the syncs queued so far are done. */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** Several registry changes in one turn (a CRD's versions) make one sync. */
  #schedule(): void {
    if (this.#pending || this.#stopped) return;
    this.#pending = true;
    this.#queue = this.#queue.then(async () => {
      this.#pending = false;
      if (!this.#stopped) await this.sync().catch(() => undefined);
    });
  }

  /** Creates, updates and removes the managed APIServices; a lost race is settled by the next sync. */
  async sync(): Promise<void> {
    const wanted = desiredLocalApiServices(this.#registry.groups(), this.#builtinGroups);
    const { items } = await this.#store.list(collectionPrefix(this.#store, apiServiceType));
    const present = new Map(items.map((kv) => [kv.key, kv]));
    for (const [name, apiService] of wanted) {
      const key = objectKey(this.#store, apiServiceType, undefined, name);
      const kv = present.get(key);
      try {
        if (!kv) {
          const created = prepareForCreate(apiService as ApiObject);
          await this.#store.create(key, encodeForStorage({ ...created, status: { conditions: [availableCondition('True', 'Local', 'served by this API server')] } }));
          continue;
        }
        const stored = decodeStored(kv) as APIService;
        if (stored.metadata.labels?.[AUTOMANAGED_LABEL] === undefined) continue;
        if (jsonEqual(stored.spec, apiService.spec) && jsonEqual(stored.metadata.labels, apiService.metadata.labels)) continue;
        const next = { ...stored, metadata: { ...stored.metadata, labels: apiService.metadata.labels }, spec: apiService.spec };
        await this.#store.update(key, encodeForStorage(next as ApiObject), kv.modRevision);
      } catch (error) {
        if (!isStorageError(error, 'AlreadyExists') && !isStorageError(error, 'Conflict')) throw error;
      }
    }
    for (const kv of items) {
      const stored = decodeStored(kv) as APIService;
      if (wanted.has(stored.metadata.name!) || stored.metadata.labels?.[AUTOMANAGED_LABEL] === undefined) continue;
      await this.#store.delete(kv.key, kv.modRevision).catch((error: unknown) => {
        if (!isStorageError(error, 'NotFound') && !isStorageError(error, 'Conflict')) throw error;
      });
    }
  }
}

/** Adds APIService to a registry built without it (every API server serves it, as every one serves CRDs). */
export function serveApiServices(registry: ResourceRegistry): void {
  const { group, version, resource } = apiServiceType;
  if (!registry.lookup(group, version, resource)) registry.add([apiServiceType]);
}
