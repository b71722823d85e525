import type { Subscription } from 'rxjs';
import { hardOf, observedUsage, recordedUsage, withUsage, type ResourceType, type Usage } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import type { ResourceCaches } from '../resource-caches.js';
import { encodeForStorage } from '../storage-codec.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import type { AdmissionEnv } from './plugin.js';
import { cachedQuotaObjects } from './quota-objects.js';

const ATTEMPTS = 8;

/**
 * Keeps ResourceQuota `status` true as objects go: when an object is deleted from a namespace with
 * quotas, their usage is recounted from the watch caches (and a new quota's status is filled in).
 * The quota controller of Kubernetes' controller manager does this there; svc's admission carries
 * it until that controller exists, and the two can run together (both write absolute counts).
 *
 * The recount cannot see a charge whose object is not stored yet; a create racing a delete in the
 * same namespace may therefore be counted once too few until the next recount.
 */
export class QuotaUsageSync {
  readonly #subscriptions: Subscription[] = [];
  readonly #pending = new Map<string, boolean>();
  #scheduled = false;
  #stopped = false;
  readonly #quotaType: ResourceType;

  constructor(
    private readonly env: AdmissionEnv,
    private readonly caches: ResourceCaches,
  ) {
    this.#quotaType = env.registry.lookup('', 'v1', 'resourcequotas')!;
  }

  start(): void {
    for (const type of this.env.registry.all()) {
      // Virtual types (the reviews) are never stored: nothing of theirs is counted.
      if (!type.namespaced || type.virtual) continue;
      const quotas = type === this.#quotaType;
      this.#subscriptions.push(
        this.caches.of(type).watch().subscribe({
          next: (event) => {
            const namespace = event.object.object.namespace;
            // A quota that appeared or changed its limits: fill in what it has not recorded yet.
            if (quotas && event.type !== 'DELETED') this.schedule(namespace, false);
            else if (event.type === 'DELETED' && this.env.objects.list(this.#quotaType, namespace).length > 0) this.schedule(namespace, true);
          },
          error: () => undefined,
        }),
      );
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
  }

  // Events arrive inside the cache's dispatch, where nothing may write: recounts run after it.
  private schedule(namespace: string, full: boolean): void {
    this.#pending.set(namespace, (this.#pending.get(namespace) ?? false) || full);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    this.#scheduled = false;
    while (this.#pending.size > 0 && !this.#stopped) {
      const [namespace, full] = this.#pending.entries().next().value as [string, boolean];
      this.#pending.delete(namespace);
      // A recount that fails (the store is closing, say) is redone by the next event in that namespace.
      await this.recount(namespace, full).catch(() => undefined);
    }
  }

  /** `full`: replace every recorded count; otherwise only record what the quota has not recorded yet. */
  private async recount(namespace: string, full: boolean): Promise<void> {
    for (const cached of this.env.objects.list(this.#quotaType, namespace)) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const quota = await this.env.reader.get(this.#quotaType, namespace, cached.metadata.name!);
        if (!quota) break;
        const next = this.usage(quota, full);
        if (!next) break;
        try {
          await this.env.store.update(objectKey(this.env.store, this.#quotaType, namespace, quota.metadata.name!), encodeForStorage(next), Number(quota.metadata.resourceVersion));
          break;
        } catch (error) {
          if (!isStorageError(error, 'Conflict')) throw error;
        }
      }
    }
  }

  /** The quota with its status recounted, or undefined when nothing changes. */
  private usage(quota: ApiObject, full: boolean): ApiObject | undefined {
    const hard = hardOf(quota);
    const recorded = recordedUsage(quota);
    const names = Object.keys(hard).filter((name) => full || !recorded.has(name));
    // Everything is recorded already: leave the status as its writer left it.
    if (names.length === 0) return undefined;
    const observed = observedUsage(quota, cachedQuotaObjects(this.env.registry, this.env.objects), { names });
    const used: Usage = new Map(recorded);
    for (const name of names) used.set(name, observed.get(name) ?? 0);
    const next = withUsage(quota, used);
    return JSON.stringify(next['status']) === JSON.stringify(quota['status']) ? undefined : next;
  }
}
