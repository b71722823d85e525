import { defer, distinctUntilChanged, map, ReplaySubject, Subscription, type Observable } from 'rxjs';
import type { Client } from './client.js';
import { discoveryOf, groupVersionTypes, servedGroupVersions, typeAtVersion, type ApiResource, type DiscoveredGroupVersion, type Discovery, type TypeAtVersion } from './discovery.js';

export interface DiscoveryCacheOptions {
  /**
   * How often `/api` and `/apis` are read again (the groups and their served versions); a
   * group version not seen before has its resource list read then. Default 30 s, the period
   * upstream's controller manager re-reads discovery with.
   */
  readonly refreshPeriodMs?: number;
  /**
   * How often every group version's resource list is read again although nothing said it
   * changed (an aggregated server that serves a new type in a group version it already had).
   * Default 5 min.
   */
  readonly fullRefreshPeriodMs?: number;
  /**
   * Each emission says served types may have changed (a CustomResourceDefinition's or an
   * APIService's watch event): every resource list is read again, at once. Subscribed while the
   * cache runs.
   */
  readonly changes$?: Observable<unknown>;
  /** Milliseconds now; default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The served types, read once for every loop of a process and kept (a `Discovery`, as
 * `discoverResources` answers it: the preferred versions' types in `resources`, every served
 * version's in `groupVersions`, each type with its subresources). Each refresh reads `/api` and `/apis`, and a group version's
 * resource list only when it is new, when `changes$` said a type changed (CRDs, APIServices), or
 * when `fullRefreshPeriodMs` has passed: in a cluster whose types do not change, two requests
 * every 30 s where reading everything took one per group version. A group version whose list
 * failed is read again at the next refresh. The timer runs from the first use until `stop()`.
 * ([client.md](../../docs/client.md#discovery))
 */
export class DiscoveryCache {
  readonly #client: Client;
  readonly #refreshPeriodMs: number;
  readonly #fullRefreshPeriodMs: number;
  readonly #changes$: Observable<unknown> | undefined;
  readonly #now: () => number;
  /** Resource lists read since the last full refresh, by path. */
  readonly #lists = new Map<string, readonly ApiResource[]>();
  readonly #updates = new ReplaySubject<Discovery>(1);
  #latest: Discovery | undefined;
  #reading: Promise<Discovery> | undefined;
  /** Whether the read in flight was begun in this turn of the event loop (its requests not sent yet). */
  #joinable = false;
  /** A read queued behind the one in flight, shared by everyone who needs a read that starts after their call. */
  #queued: Promise<Discovery> | undefined;
  /** Whether the next read re-reads every resource list. */
  #stale = true;
  #lastFullMs = 0;
  #running: Subscription | undefined;
  #stopped = false;

  constructor(client: Client, options: DiscoveryCacheOptions = {}) {
    this.#client = client;
    this.#refreshPeriodMs = options.refreshPeriodMs ?? 30_000;
    this.#fullRefreshPeriodMs = options.fullRefreshPeriodMs ?? 300_000;
    this.#changes$ = options.changes$;
    this.#now = options.now ?? Date.now;
  }

  /** The latest discovery; the first call reads it. Rejects when `/api` or `/apis` cannot be read and nothing was read before. */
  current(): Promise<Discovery> {
    this.#start();
    return this.#latest !== undefined ? Promise.resolve(this.#latest) : this.#read();
  }

  /**
   * Discovery read by requests that start after this call, every resource list included, as
   * `discoverResources` reads it (the namespace controller's deletion needs no older answer);
   * callers at the same time share one read.
   */
  fresh(): Promise<Discovery> {
    this.#start();
    this.#stale = true;
    return this.#readAfter();
  }

  /**
   * `kind` at exactly `apiVersion` (`typeAtVersion`), from the latest discovery; on a miss (the
   * group version not served, or serving no such kind) from a fresh read, once, as upstream's
   * deferred REST mapper resets on a no-match. A type served after the latest read (a CRD whose
   * routes came up after its last watch event) is found now, not at the next refresh; a kind
   * that stays missing costs a read per call, as upstream.
   */
  async typeAtVersion(apiVersion: string, kind: string): Promise<TypeAtVersion> {
    const found = typeAtVersion(await this.current(), apiVersion, kind);
    if (found.served && (found.type !== undefined || found.error !== undefined)) return found;
    return typeAtVersion(await this.fresh(), apiVersion, kind);
  }

  /** Served types may have changed: every resource list is read again now. */
  invalidate(): void {
    this.#stale = true;
    if (this.#running !== undefined) this.#readAfter().catch(() => undefined);
  }

  /** Each discovery that differs from the one before (the first one included); subscribing starts the cache. */
  readonly discoveries$: Observable<Discovery> = defer(() => {
    this.#start();
    if (this.#latest === undefined) this.#read().catch(() => undefined);
    return this.#updates;
  }).pipe(
    map((discovery) => ({ discovery, signature: signatureOf(discovery) })),
    distinctUntilChanged((a, b) => a.signature === b.signature),
    map(({ discovery }) => discovery),
  );

  /**
   * Whether everyone who asked has had a first discovery: true while nobody has, and once a read
   * answered. Readiness waits on it, since loops that register informers per discovered type (the
   * garbage collector, quota) have not asked for them before it answers.
   */
  answered(): boolean {
    return this.#running === undefined || this.#latest !== undefined;
  }

  /** Stops the timer and the change feed; reads in flight finish. Idempotent. */
  stop(): void {
    this.#stopped = true;
    this.#running?.unsubscribe();
    this.#updates.complete();
  }

  #start(): void {
    if (this.#running !== undefined || this.#stopped) return;
    // Unref'd: a cache nobody stopped (a test's, a script's) does not keep the process alive.
    const interval = setInterval(() => this.#read().catch(() => undefined), this.#refreshPeriodMs);
    interval.unref();
    this.#running = new Subscription(() => clearInterval(interval));
    if (this.#changes$ !== undefined) this.#running.add(this.#changes$.subscribe({ next: () => this.invalidate(), error: () => undefined }));
  }

  /** The read in flight, or a new one. */
  #read(): Promise<Discovery> {
    if (this.#reading === undefined) {
      this.#reading = this.#refresh().finally(() => (this.#reading = undefined));
      // Its requests leave after this turn of the event loop: until then a caller that needs a
      // read started after its call may still join it.
      this.#joinable = true;
      setImmediate(() => (this.#joinable = false));
    }
    return this.#reading;
  }

  /** A read that starts after this call: one begun in this turn, else the next one, queued behind the one in flight. */
  #readAfter(): Promise<Discovery> {
    if (this.#reading === undefined || this.#joinable) return this.#read();
    this.#queued ??= this.#reading
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.#read();
      });
    return this.#queued;
  }

  async #refresh(): Promise<Discovery> {
    if (this.#stale || this.#now() - this.#lastFullMs >= this.#fullRefreshPeriodMs) {
      // Marked before reading: a change heard while this read runs makes the next one full again.
      this.#stale = false;
      this.#lastFullMs = this.#now();
      this.#lists.clear();
    }
    const groupVersions = await servedGroupVersions(this.#client);
    const served = new Set(groupVersions.map((gv) => gv.path));
    for (const path of this.#lists.keys()) if (!served.has(path)) this.#lists.delete(path);
    const answers = await Promise.allSettled(groupVersions.map((gv) => this.#listOf(gv)));
    const discovery = discoveryOf(groupVersions, answers);
    this.#latest = discovery;
    if (!this.#stopped) this.#updates.next(discovery);
    return discovery;
  }

  async #listOf(gv: DiscoveredGroupVersion): Promise<readonly ApiResource[]> {
    const kept = this.#lists.get(gv.path);
    if (kept !== undefined) return kept;
    const list = await groupVersionTypes(this.#client, gv);
    this.#lists.set(gv.path, list);
    return list;
  }
}

/** What a consumer reacts to: the served types of every version, their subresources, and the group versions that failed. */
function signatureOf(discovery: Discovery): string {
  return (discovery.groupVersions ?? [])
    .flatMap((gv) => [
      `${gv.preferred ? '*' : ''}${gv.group}/${gv.version}${gv.resources === undefined ? '!' : ''}`,
      ...(gv.resources ?? []).map((r) => ` ${r.resource}:${r.namespaced ? 'n' : 'c'}:${r.kind}:${r.verbs.join(',')}:${(r.subresources ?? []).join(',')}`),
    ])
    .join('\n');
}
