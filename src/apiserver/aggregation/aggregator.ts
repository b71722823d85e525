import type { Subscription } from 'rxjs';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { apiServiceType, methodNotAllowed, serviceUnavailable, type ApiGroupVersions, type APIService, type ResourceRegistry } from '../../api/index.js';
import { isStorageError, type Store } from '../../storage/index.js';
import { CachedObjects } from '../admission/index.js';
import type { Authorizer } from '../authz/index.js';
import { authorizeApiRequest } from '../authz/index.js';
import { decodeStored, encodeForStorage } from '../storage-codec.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import { isRequestInfo, parseRequestPath } from '../request-info.js';
import type { ResourceCaches } from '../resource-caches.js';
import { pathNotFound } from '../status.js';
import { aggregatedGroupDocument } from '../discovery.js';
import { versionPriority } from '../crd/index.js';
import { availableCondition, availableOf, withAvailable, type AvailableReason } from './conditions.js';
import { checkDiscovery } from './discovery-check.js';
import { versionDiscovery, type VersionDiscovery } from './discovery-v2.js';
import { LocalApiServices } from './local-apiservices.js';
import { forwardRequest, forwardUpgrade, type OpenStreams, type ProxyTarget } from './proxy.js';
import { remoteApiService, signatureOf, type ProxyClientCertificate, type RemoteApiService } from './remote-api-service.js';
import { resolveServiceEndpoint } from './service-endpoint.js';
import { jsonBody } from '../json-newline.js';

export interface AggregatorOptions {
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly caches: ResourceCaches;
  /** Decides proxied requests before they leave (absent: everything is allowed). */
  readonly authorizer?: Authorizer | undefined;
  /** The front-proxy client certificate (`--proxy-client-cert-file`/`--proxy-client-key-file`). */
  readonly proxyClient?: ProxyClientCertificate | undefined;
  /** How often every remote APIService is checked (default 10 s); changes and failed requests check at once. */
  readonly checkIntervalMs?: number | undefined;
  /** How long a remote may take to answer a check, or to send a proxied answer's head (default 5 s). */
  readonly timeoutMs?: number | undefined;
}

/** What the last check of a remote APIService found. */
interface Availability {
  readonly available: boolean;
  readonly reason: AvailableReason;
  readonly message: string;
  /** The remote's APIResourceList, from its last passed check. */
  readonly discovery?: unknown;
}

const gvKey = (group: string, version: string) => `${group}/${version}`;

/**
 * The aggregation layer: kube-aggregator inside svc-apiserver (docs/aggregation.md).
 *
 * - keeps the local APIServices (`LocalApiServices`);
 * - follows the APIServices with a `spec.service` and proxies `/apis/<group>/<version>/...` of
 *   each to an endpoint of its Service, after svc's own authentication and authorization
 *   (`onRequest`, installed after authentication);
 * - checks each remote's discovery endpoint and writes its Available condition;
 * - gives discovery (`/apis`) the remote groups.
 *
 * A group-version the API server serves itself is never proxied, whatever an APIService says.
 */
export class Aggregator {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #caches: ResourceCaches;
  readonly #objects: CachedObjects;
  readonly #options: AggregatorOptions;
  readonly #local: LocalApiServices;
  /** Remote APIServices by `<group>/<version>`; empty when there are none, which the hot path checks first. */
  #remotes = new Map<string, RemoteApiService>();
  /** Groups served by remotes only (the key of `/apis/<group>`), rebuilt with `#remotes`. */
  #remoteGroups = new Set<string>();
  readonly #availability = new Map<string, Availability>();
  #subscriptions: Subscription[] = [];
  readonly #open: OpenStreams = new Set();
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> = Promise.resolve();
  #checkQueued = false;
  #stopped = false;

  constructor(options: AggregatorOptions) {
    this.#options = options;
    this.#store = options.store;
    this.#registry = options.registry;
    this.#caches = options.caches;
    this.#objects = new CachedObjects(options.caches, options.store);
    this.#local = new LocalApiServices({ store: options.store, registry: options.registry });
  }

  get #timeoutMs(): number {
    return this.#options.timeoutMs ?? 5000;
  }

  /** Writes the local APIServices (before the caches start, so they list them at once). */
  async prepare(): Promise<void> {
    await this.#local.start();
  }

  /** Follows APIServices, Services and Endpoints (after the caches started) and begins the checks. */
  start(): void {
    const apiServices = this.#caches.of(apiServiceType);
    this.#reindex();
    this.#subscriptions.push(
      apiServices.watch().subscribe(() => {
        this.#reindex();
        this.#queueCheck();
      }),
    );
    for (const [group, resource] of [['', 'services'], ['', 'endpoints'], ['discovery.svc.io', 'endpointslices']] as const) {
      const type = this.#registry.lookup(group, 'v1', resource);
      if (type) this.#subscriptions.push(this.#caches.of(type).watch().subscribe(() => this.#remotes.size > 0 && this.#queueCheck()));
    }
    this.#timer = setInterval(() => this.#queueCheck(), this.#options.checkIntervalMs ?? 10_000);
    this.#timer.unref();
    this.#queueCheck();
  }

  stop(): void {
    this.#stopped = true;
    this.#local.stop();
    clearInterval(this.#timer);
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    for (const remote of this.#remotes.values()) remote.agent.destroy();
    for (const stream of this.#open) stream.destroy();
  }

  /** Resolves once the writes and checks queued so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    await this.#local.settled();
    await this.#checking;
  }

  #reindex(): void {
    const previous = this.#remotes;
    const next = new Map<string, RemoteApiService>();
    for (const object of this.#objects.list(apiServiceType)) {
      const apiService = object as unknown as APIService;
      const group = apiService.spec.group ?? '';
      if (!apiService.spec.service || this.#registry.resourcesOf(group, apiService.spec.version).length > 0) continue;
      const key = gvKey(group, apiService.spec.version);
      const old = previous.get(key);
      const remote = old?.signature === signatureOf(apiService) ? old : remoteApiService(apiService, this.#options.proxyClient);
      if (remote) next.set(key, remote);
    }
    for (const [key, remote] of previous) if (next.get(key) !== remote) remote.agent.destroy();
    for (const name of this.#availability.keys()) if (![...next.values()].some((r) => r.name === name)) this.#availability.delete(name);
    this.#remotes = next;
    this.#remoteGroups = new Set([...next.values()].map((r) => r.group).filter((g) => this.#registry.groups().every((local) => local.name !== g)));
  }

  /** One check of every remote at a time; calls in between make one more. */
  #queueCheck(): void {
    if (this.#checkQueued || this.#stopped) return;
    this.#checkQueued = true;
    this.#checking = this.#checking.then(async () => {
      this.#checkQueued = false;
      if (this.#stopped) return;
      await Promise.all([...this.#remotes.values()].map((remote) => this.#check(remote).catch(() => undefined)));
      await this.#markLocal().catch(() => undefined);
    });
  }

  async #check(remote: RemoteApiService): Promise<void> {
    const resolved = resolveServiceEndpoint(this.#objects, this.#registry, remote.service);
    let found: Availability;
    if (remote.caError !== undefined) found = { available: false, reason: 'FailedDiscoveryCheck', message: remote.caError };
    else if (!resolved.ok) found = { available: false, reason: resolved.reason, message: resolved.message };
    else {
      const result = await checkDiscovery({ remote, host: resolved.host, port: resolved.port }, this.#timeoutMs);
      found = result.ok
        ? { available: true, reason: 'Passed', message: 'all checks passed', discovery: result.document }
        : { available: false, reason: 'FailedDiscoveryCheck', message: result.message };
    }
    // A failing remote's resources stay listed (as Stale) from its last passed check.
    const previous = this.#availability.get(remote.name)?.discovery;
    if (!found.available && previous !== undefined) found = { ...found, discovery: previous };
    if (this.#stopped || this.#remotes.get(gvKey(remote.group, remote.version)) !== remote) return;
    this.#availability.set(remote.name, found);
    await this.#writeAvailable(remote.name, found);
  }

  /** An APIService without a Service that nobody gave a condition yet (one a client created) is Local, as upstream's availability controller has it. */
  async #markLocal(): Promise<void> {
    for (const object of this.#objects.list(apiServiceType)) {
      const apiService = object as unknown as APIService;
      if (apiService.spec.service || availableOf(apiService)) continue;
      await this.#writeAvailable(apiService.metadata.name!, { available: true, reason: 'Local', message: 'served by this API server' }, true);
    }
  }

  /** With `onlyIfAbsent`, a condition someone wrote meanwhile (the cache lags the store) is kept. */
  async #writeAvailable(name: string, found: Availability, onlyIfAbsent = false): Promise<void> {
    const key = objectKey(this.#store, apiServiceType, undefined, name);
    const kv = await this.#store.get(key);
    if (!kv) return;
    const stored = decodeStored(kv) as APIService;
    if (onlyIfAbsent && availableOf(stored)) return;
    const conditions = withAvailable(stored, availableCondition(found.available ? 'True' : 'False', found.reason, found.message));
    if (!conditions) return;
    try {
      await this.#store.update(key, encodeForStorage({ ...(stored as ApiObject), status: { ...stored.status, conditions } }), kv.modRevision);
    } catch (error) {
      // Changed meanwhile: the change queues another check.
      if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound')) throw error;
    }
  }

  /**
   * The groups remotes serve, for `/apis`: by `groupPriorityMinimum` (highest first), each with
   * its versions by `versionPriority`, then Kubernetes' version order.
   */
  remoteGroups(): readonly ApiGroupVersions[] {
    if (this.#remotes.size === 0) return [];
    const byGroup = new Map<string, RemoteApiService[]>();
    for (const remote of this.#remotes.values()) {
      if (!this.#remoteGroups.has(remote.group)) continue;
      byGroup.set(remote.group, [...(byGroup.get(remote.group) ?? []), remote]);
    }
    return [...byGroup]
      .map(([name, remotes]) => {
        remotes.sort((a, b) => b.versionPriority - a.versionPriority || versionPriority(a.version, b.version));
        return { name, versions: remotes.map((r) => r.version), preferredVersion: remotes[0]!.version, priority: Math.max(...remotes.map((r) => r.groupPriorityMinimum)) };
      })
      .sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name))
      .map(({ name, versions, preferredVersion }) => ({ name, versions, preferredVersion }));
  }

  /** The APIResourceList a remote group-version answered its last passed check with (kept while it fails). */
  discoveryOf(group: string, version: string): unknown {
    const remote = this.#remotes.get(gvKey(group, version));
    return remote && this.#availability.get(remote.name)?.discovery;
  }

  /**
   * The remote groups as aggregated discovery (v2) lists them (`APIGroupDiscovery` items, in
   * `/apis` order), from what each version's last passed check read; `Stale` while it fails.
   */
  discoveryV2(): { metadata: { name: string }; versions: VersionDiscovery[] }[] {
    return this.remoteGroups().map((group) => ({
      metadata: { name: group.name },
      versions: group.versions.map((version) => {
        const remote = this.#remotes.get(gvKey(group.name, version))!;
        const found = this.#availability.get(remote.name);
        return versionDiscovery(group.name, version, this.discoveryOf(group.name, version), found?.available === true);
      }),
    }));
  }

  /**
   * The onRequest hook that proxies, installed after authentication: requests under a remote
   * group-version are authorized as svc authorizes its own (RBAC on the resource), then passed
   * on; `/apis/<group>` of a remote-only group is answered here. Everything else goes on.
   */
  onRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (this.#remotes.size === 0 || !request.user) return done();
    const q = request.url.indexOf('?');
    const url = q < 0 ? request.url : request.url.slice(0, q);
    if (!url.startsWith('/apis/')) return done();
    const [group = '', version] = url.slice('/apis/'.length).split('/');
    if (version === undefined || version === '') {
      if (!this.#remoteGroups.has(group)) return done();
      return this.#serveGroup(request, reply, url, group, done);
    }
    const remote = this.#remotes.get(gvKey(group, version));
    if (!remote) return done();
    this.#proxy(request, reply, url, remote).then(
      () => undefined,
      (error: Error) => done(error),
    );
  };

  #serveGroup(request: FastifyRequest, reply: FastifyReply, url: string, group: string, done: HookHandlerDoneFunction): void {
    try {
      const parsed = parseRequestPath(request.method, url, request.query as Record<string, unknown>);
      if (!parsed) throw pathNotFound();
      if (this.#options.authorizer) authorizeApiRequest(this.#options.authorizer, request, parsed, url);
      if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method, 'discovery');
      const found = this.remoteGroups().find((g) => g.name === group);
      if (!found) throw pathNotFound();
      const document = { kind: 'APIGroup', apiVersion: 'v1', ...aggregatedGroupDocument(found) };
      reply.type('application/json').send(jsonBody(document));
    } catch (error) {
      done(error as Error);
    }
  }

  async #proxy(request: FastifyRequest, reply: FastifyReply, url: string, remote: RemoteApiService): Promise<void> {
    const parsed = parseRequestPath(request.method, url, request.query as Record<string, unknown>);
    if (!parsed) throw pathNotFound();
    // svc decides first: a request it does not allow never reaches the remote.
    if (this.#options.authorizer) authorizeApiRequest(this.#options.authorizer, request, parsed, url);
    const availability = this.#availability.get(remote.name);
    const unavailable = (message: string) =>
      serviceUnavailable(`the server is currently unable to handle the request (${isRequestInfo(parsed) ? `${parsed.resource}.${remote.group}` : url}): ${message}`);
    if (remote.caError !== undefined) throw unavailable(remote.caError);
    if (availability && !availability.available) throw unavailable(`APIService ${remote.name} is not available: ${availability.reason}: ${availability.message}`);
    const resolved = resolveServiceEndpoint(this.#objects, this.#registry, remote.service);
    if (!resolved.ok) throw unavailable(resolved.message);
    const target: ProxyTarget = { remote, host: resolved.host, port: resolved.port };
    try {
      if (await forwardUpgrade(request, reply, target, request.user!, this.#timeoutMs, this.#open)) return;
      await forwardRequest(request, reply, target, request.user!, this.#timeoutMs, this.#open);
    } catch (error) {
      // The remote went away: check now, so the condition says so without waiting for the interval.
      this.#queueCheck();
      throw error;
    }
  }
}
