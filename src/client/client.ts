import type { AsyncIterableX } from 'ix/asynciterable/asynciterablex';
import type { Observable } from 'rxjs';
import type { KubeObject, StatusDetails } from '../api/index.js';
import { jsonCodec, type Codec } from './wire-codec.js';
import { decodeStrategy, type DecodeMode, type DecodeStrategy } from './decode-strategy.js';
import { listItemsObservable, listPagesIx, listPagesObservable, type ListOptions, type ListPage, type PageFetcher } from './list.js';
import { builtin, resourcePath, type Resource } from './resource.js';
import { isRecord } from './status.js';
import { fromTarget, resolveEnvConfig, type EnvConfigOptions } from './env-config.js';
import { lines$ } from './log-lines.js';
import { bindingBody, evictionBody, logQuery, type BindOptions, type EvictOptions, type PodLogOptions, type Scale, type TokenRequestSpec } from './subresource.js';
import { loadSvcconfig } from './svcconfig.js';
import { attachQuery, ExecSession, type AttachOptions, type ExecOptions } from './exec-session.js';
import { listenForwarding, portForwardQuery, PortForwardSession, type ForwardPortOptions, type PortForwarder, type PortForwardOptions } from './port-forward.js';
import { EXEC_PROTOCOLS, PORT_FORWARD_PROTOCOLS } from './stream-channels.js';
import { Transport, type ConnectionOptions, type RequestThrottle } from './transport.js';
import { watcher, type WatcherEvent, type WatchOptions } from './watcher.js';

export interface ClientOptions extends ConnectionOptions {
  /** Namespace of namespaced requests that name none. Default `'default'`. */
  readonly namespace?: string | undefined;
  /** Request and response encoding. Default (and, for now, only): JSON. */
  readonly codec?: Codec | undefined;
}

/** Options every write takes. */
export interface WriteOptions {
  readonly namespace?: string | undefined;
  /** Run every check and answer as for real, without writing. */
  readonly dryRun?: boolean | undefined;
  /** Who makes the change (managedFields); required for apply patches. */
  readonly fieldManager?: string | undefined;
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore' | undefined;
}

export interface CreateOptions extends WriteOptions {
  /**
   * How the answer is read: `'eager'` (default) decodes it whole; `'protobuf'` (the answer asked
   * for in protobuf) and `'lazy'` (JSON) give a frozen view that decodes a field when it is read,
   * for a caller that reads a field or two of what it created (see DecodeMode).
   */
  readonly decode?: DecodeMode | undefined;
}

/** The patch types svc-apiserver accepts, by their media type. */
export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = keyof typeof PATCH_TYPES;

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

export interface PatchOptions extends WriteOptions {
  /** Default `'merge'`. */
  readonly type?: PatchType | undefined;
  /** Apply only: take fields other managers own. */
  readonly force?: boolean | undefined;
}

export interface DeleteOptions {
  readonly namespace?: string | undefined;
  readonly dryRun?: boolean | undefined;
  readonly gracePeriodSeconds?: number | undefined;
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | undefined;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string } | undefined;
}

export interface DeleteCollectionOptions extends DeleteOptions {
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
}

/** The answer of a delete that removed the object at once. */
export interface SuccessStatus {
  readonly kind: 'Status';
  readonly status: 'Success';
  readonly details?: StatusDetails;
}

/** A delete answers the object when it was only marked (finalizers), a Success Status when it is gone. */
export type DeleteResult<T> = T | SuccessStatus;

export function isSuccessStatus(value: unknown): value is SuccessStatus {
  return isRecord(value) && value['kind'] === 'Status' && value['status'] === 'Success';
}

/**
 * A client of svc-apiserver (and of any Kubernetes API server, for JSON): CRUD on any resource,
 * paged lists as Observables or lazy AsyncIterables, and a resuming watch. Every failed request
 * rejects with a StatusError (reason, code, details as the server sent them); network failures
 * reject with undici's errors.
 */
export class Client {
  readonly transport: Transport;
  /** The namespace of namespaced requests that name none. */
  readonly namespace: string;

  /** `transport`: another client's (see `derive`); unset: one of its own, with connections of its own. */
  constructor(options: ClientOptions, transport?: Transport) {
    this.transport = transport ?? new Transport(options, options.codec ?? jsonCodec);
    this.namespace = options.namespace ?? 'default';
  }

  /** The `User-Agent` this client's requests send. */
  get userAgent(): string {
    return this.transport.userAgent;
  }

  /**
   * A client on this one's connections (the same bounded request pool, watch sockets, servers,
   * credentials and codec) with its own user agent and throttle: each control loop's own token
   * bucket without a socket more (docs/client.md#one-connection-pool-several-rate-limits). The
   * connections are shared, so closing or destroying either closes them for both.
   */
  derive(overrides: { readonly userAgent?: string | undefined; readonly throttle?: RequestThrottle | undefined }): Client {
    return new Client({ server: '', namespace: this.namespace }, this.transport.derive(overrides));
  }

  /** A client for a svcconfig (kubeconfig) file's current context, or `options.context`. */
  static async fromSvcconfig(path: string, options: Omit<ClientOptions, 'server'> & { readonly context?: string } = {}): Promise<Client> {
    const { context, ...rest } = options;
    const target = await loadSvcconfig(path, context !== undefined ? { context } : {});
    return new Client({ ...fromTarget(target), ...rest });
  }

  /**
   * A client configured as kubectl finds its configuration: `options.path`, else `SVCCONFIG`,
   * else `KUBECONFIG` (a merged list), else `~/.kube/config`, else in-cluster (service-account
   * token, re-read as it rotates). See `resolveEnvConfig`; nothing found is a SvcconfigError.
   */
  static async fromEnv(options: Omit<ClientOptions, 'server'> & EnvConfigOptions = {}): Promise<Client> {
    const { path, context, env, homeDir, inClusterDir, tokenFile, ...rest } = options;
    const found = await resolveEnvConfig({ path, context, env, homeDir, inClusterDir, tokenFile });
    return new Client({ ...found.connection, ...rest });
  }

  #ns(res: Resource<KubeObject>, namespace: string | undefined): string | undefined {
    return res.namespaced ? (namespace ?? this.namespace) : undefined;
  }

  async get<T extends KubeObject>(res: Resource<T>, name: string, options: { namespace?: string | undefined } = {}): Promise<T> {
    return (await this.transport.request({ method: 'GET', path: resourcePath(res, this.#ns(res, options.namespace), name) })) as T;
  }

  /** Creates `object` in `options.namespace`, else its own `metadata.namespace`, else the client's. */
  async create<T extends KubeObject>(res: Resource<T>, object: T, options: CreateOptions = {}): Promise<T> {
    const ns = this.#ns(res, options.namespace ?? object.metadata.namespace);
    const answer = options.decode === undefined || options.decode === 'eager' ? {} : await this.#decoding(options).object();
    return (await this.transport.request({ method: 'POST', path: resourcePath(res, ns), query: writeQuery(options), body: object, ...answer })) as T;
  }

  /** Replaces the object `object` names; `metadata.resourceVersion` must be the stored one (409 otherwise). */
  async update<T extends KubeObject>(res: Resource<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const name = object.metadata.name;
    if (name === undefined) throw new TypeError('update needs metadata.name');
    const ns = this.#ns(res, options.namespace ?? object.metadata.namespace);
    return (await this.transport.request({ method: 'PUT', path: resourcePath(res, ns, name), query: writeQuery(options), body: object })) as T;
  }

  /**
   * Patches one object. `type`: `'merge'` (default, RFC 7386), `'json'` (RFC 6902 operations),
   * `'strategic'` (strategic merge), `'apply'` (server-side apply: `patch` is the object as the
   * field manager wants it; `fieldManager` is required, `force` takes over conflicting fields).
   */
  async patch<T extends KubeObject>(res: Resource<T>, name: string, patch: readonly JsonPatchOperation[] | object, options: PatchOptions = {}): Promise<T> {
    return this.#patchAt<T>(resourcePath(res, this.#ns(res, options.namespace), name), patch, options);
  }

  async delete<T extends KubeObject>(res: Resource<T>, name: string, options: DeleteOptions = {}): Promise<DeleteResult<T>> {
    return (await this.transport.request({
      method: 'DELETE',
      path: resourcePath(res, this.#ns(res, options.namespace), name),
      ...deleteBody(options),
    })) as DeleteResult<T>;
  }

  /** Deletes every object the selectors match (in one namespace, or all of a cluster-scoped type); answers what was deleted or marked. */
  async deleteCollection<T extends KubeObject>(res: Resource<T>, options: DeleteCollectionOptions = {}): Promise<ListPage<T>> {
    const body = await this.transport.request({
      method: 'DELETE',
      path: resourcePath(res, this.#ns(res, options.namespace)),
      ...deleteBody(options),
      query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector, ...(options.dryRun ? { dryRun: 'All' } : {}) },
    });
    return toPage<T>(body);
  }

  #sub(res: Resource<KubeObject>, namespace: string | undefined, name: string, subresource: string): string {
    return `${resourcePath(res, this.#ns(res, namespace), name)}/${subresource}`;
  }

  /** The object as the `status` subresource answers it. */
  async getStatus<T extends KubeObject>(res: Resource<T>, name: string, options: { namespace?: string | undefined } = {}): Promise<T> {
    return (await this.transport.request({ method: 'GET', path: this.#sub(res, options.namespace, name, 'status') })) as T;
  }

  /** Writes `object.status` only (the rest of `object` is ignored); `metadata.resourceVersion` must be the stored one. */
  async updateStatus<T extends KubeObject>(res: Resource<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const name = object.metadata.name;
    if (name === undefined) throw new TypeError('updateStatus needs metadata.name');
    const path = this.#sub(res, options.namespace ?? object.metadata.namespace, name, 'status');
    return (await this.transport.request({ method: 'PUT', path, query: writeQuery(options), body: object })) as T;
  }

  /** Patches the status (any patch type, as `patch`); changes outside `status` are ignored by the server. */
  async patchStatus<T extends KubeObject>(res: Resource<T>, name: string, patch: readonly JsonPatchOperation[] | object, options: PatchOptions = {}): Promise<T> {
    return this.#patchAt<T>(this.#sub(res, options.namespace, name, 'status'), patch, options);
  }

  /** Server-side apply of `object`'s status (`fieldManager` required; `force` takes over fields others own). */
  async applyStatus<T extends KubeObject>(res: Resource<T>, object: T, options: Omit<PatchOptions, 'type'> & { readonly fieldManager: string }): Promise<T> {
    const name = object.metadata.name;
    if (name === undefined) throw new TypeError('applyStatus needs metadata.name');
    return this.patchStatus(res, name, object, { namespace: object.metadata.namespace, ...options, type: 'apply' });
  }

  /**
   * Writes a CertificateSigningRequest's approval conditions (Approved, Denied) through its
   * `approval` subresource, as `kubectl certificate approve` does; the rest of `object` is ignored.
   */
  async updateApproval<T extends KubeObject>(res: Resource<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const name = object.metadata.name;
    if (name === undefined) throw new TypeError('updateApproval needs metadata.name');
    return (await this.transport.request({ method: 'PUT', path: this.#sub(res, undefined, name, 'approval'), query: writeQuery(options), body: object })) as T;
  }

  /**
   * Writes a Namespace's `spec.finalizers` through its `finalize` subresource (the namespace
   * controller's last step); the object's resourceVersion makes it conditional (409 when stale).
   */
  async finalize<T extends KubeObject>(res: Resource<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const name = object.metadata.name;
    if (name === undefined) throw new TypeError('finalize needs metadata.name');
    return (await this.transport.request({ method: 'PUT', path: this.#sub(res, undefined, name, 'finalize'), query: writeQuery(options), body: object })) as T;
  }

  /**
   * Asks for a service account's token (`serviceaccounts/token`, an authentication.k8s.io/v1
   * TokenRequest with `spec`); answers the TokenRequest as the server returns it (its `status`).
   */
  async createToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<unknown> {
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec };
    return this.transport.request({ method: 'POST', path: this.#sub(builtin.serviceAccounts, namespace, serviceAccount, 'token'), body, contentType: 'application/json' });
  }

  /** The `scale` subresource (autoscaling/v1 Scale). */
  async getScale(res: Resource<KubeObject>, name: string, options: { namespace?: string | undefined } = {}): Promise<Scale> {
    return (await this.transport.request({ method: 'GET', path: this.#sub(res, options.namespace, name, 'scale') })) as Scale;
  }

  /** Sets `spec.replicas` through the scale subresource; `metadata.resourceVersion`, when set, must be the stored one. */
  async updateScale(res: Resource<KubeObject>, scale: Scale, options: WriteOptions = {}): Promise<Scale> {
    const name = scale.metadata.name;
    if (name === undefined) throw new TypeError('updateScale needs metadata.name');
    const path = this.#sub(res, options.namespace ?? scale.metadata.namespace, name, 'scale');
    return (await this.transport.request({ method: 'PUT', path, query: writeQuery(options), body: { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale } })) as Scale;
  }

  async patchScale(res: Resource<KubeObject>, name: string, patch: readonly JsonPatchOperation[] | object, options: PatchOptions = {}): Promise<Scale> {
    return this.#patchAt<Scale>(this.#sub(res, options.namespace, name, 'scale'), patch, options);
  }

  /** Evicts a pod (`policy/v1` Eviction): deleted if its disruption budgets allow, a 429 `TooManyRequests` StatusError otherwise. */
  async evict(name: string, options: EvictOptions = {}): Promise<unknown> {
    const namespace = options.namespace ?? this.namespace;
    return this.transport.request({ method: 'POST', path: this.#sub(builtin.pods, namespace, name, 'eviction'), body: evictionBody(name, namespace, options), contentType: 'application/json' });
  }

  /** Binds a pod to a node (`pods/binding`): sets `spec.nodeName` once (409 `Conflict` if already bound). */
  async bind(name: string, node: string, options: BindOptions = {}): Promise<unknown> {
    const namespace = options.namespace ?? this.namespace;
    const query = options.dryRun ? { dryRun: 'All' } : {};
    return this.transport.request({ method: 'POST', path: this.#sub(builtin.pods, namespace, name, 'binding'), query, body: bindingBody(name, namespace, node, options), contentType: 'application/json' });
  }

  /** A pod's log as lines (cold: each subscription asks; unsubscribing ends the request, a followed one included). */
  logs$(name: string, options: PodLogOptions = {}): Observable<string> {
    return lines$(this.transport, { method: 'GET', path: this.#sub(builtin.pods, options.namespace, name, 'log'), query: logQuery(options) });
  }

  /**
   * Runs `command` in a pod's container (`pods/exec` over WebSocket, v5.channel.k8s.io or v4):
   * resolves once the server has accepted, with the session's stdin, stdout, stderr, resize and
   * exit code (ExecSession). A refused request (no such pod, 403) rejects with its StatusError.
   */
  async exec(name: string, command: readonly string[], options: ExecOptions = {}): Promise<ExecSession> {
    if (command.length === 0) throw new TypeError('exec needs a command');
    const path = this.#sub(builtin.pods, options.namespace, name, 'exec');
    return new ExecSession(await this.transport.websocket(path, attachQuery(options, command), EXEC_PROTOCOLS), options);
  }

  /** Attaches to a running container's streams (`pods/attach`); the session is as exec's. */
  async attach(name: string, options: AttachOptions = {}): Promise<ExecSession> {
    const path = this.#sub(builtin.pods, options.namespace, name, 'attach');
    return new ExecSession(await this.transport.websocket(path, attachQuery(options), EXEC_PROTOCOLS), options);
  }

  /**
   * One port-forward connection to `ports` of a pod (`pods/portforward` over WebSocket): a Duplex
   * per port (`session.stream(port)`), each one TCP connection to that port inside the pod.
   */
  async portForward(name: string, ports: readonly number[], options: PortForwardOptions = {}): Promise<PortForwardSession> {
    if (ports.length === 0) throw new TypeError('port-forward needs a port');
    const path = this.#sub(builtin.pods, options.namespace, name, 'portforward');
    return new PortForwardSession(await this.transport.websocket(path, portForwardQuery(ports), PORT_FORWARD_PROTOCOLS), ports);
  }

  /**
   * Listens on a local port (`localPort`, default any free one) and forwards each connection to
   * `remotePort` of the pod, as `kubectl port-forward` does. `onError` hears of connections that
   * could not be forwarded (they are closed).
   */
  forwardPort(name: string, remotePort: number, options: ForwardPortOptions = {}, onError?: (error: unknown) => void): Promise<PortForwarder> {
    return listenForwarding(() => this.portForward(name, [remotePort], options), remotePort, options, onError);
  }

  async #patchAt<T>(path: string, patch: readonly JsonPatchOperation[] | object, options: PatchOptions): Promise<T> {
    const type = options.type ?? 'merge';
    if (type === 'apply' && options.fieldManager === undefined) throw new TypeError('an apply patch needs a fieldManager');
    if (type === 'json' && !Array.isArray(patch)) throw new TypeError('a JSON patch is an array of operations');
    return (await this.transport.request({
      method: 'PATCH',
      path,
      query: { ...writeQuery(options), force: type === 'apply' && options.force ? true : undefined },
      body: patch,
      contentType: PATCH_TYPES[type],
    })) as T;
  }

  /** One list request: everything (no `limit`), or one page. Namespaced types: every namespace unless `namespace` is given. */
  async list<T extends KubeObject>(res: Resource<T>, options: ListOptions = {}, signal?: AbortSignal): Promise<ListPage<T>> {
    return this.#list(res, options, this.#decoding(options), signal);
  }

  #decoding(options: Pick<ListOptions, 'decode'>): DecodeStrategy {
    return decodeStrategy(options.decode ?? 'eager', this.transport.codec);
  }

  /** A page fetcher of one decode strategy, chosen once for every page of a list or every list of a watch. */
  #pageFetcher<T extends KubeObject>(res: Resource<T>, decoding: DecodeStrategy, namespace?: string): PageFetcher<T> {
    return (o, signal) => this.#list(res, namespace === undefined ? o : { ...o, namespace }, decoding, signal);
  }

  async #list<T extends KubeObject>(res: Resource<T>, options: ListOptions, decoding: DecodeStrategy, signal: AbortSignal | undefined): Promise<ListPage<T>> {
    const body = await this.transport.request({
      method: 'GET',
      path: resourcePath(res, res.namespaced ? options.namespace : undefined),
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
      },
      ...(await decoding.list(options.metadataOnly === true)),
      ...(signal ? { signal } : {}),
    });
    return toPage<T>(body);
  }

  /**
   * The pages of a list as an ix AsyncIterable: a page is fetched only when the consumer pulls
   * it, so breaking out early fetches nothing more. `limit` defaults to 500; see ExpiredPolicy for
   * a continue token that expires part way.
   */
  listPages<T extends KubeObject>(res: Resource<T>, options: ListOptions = {}): AsyncIterableX<ListPage<T>> {
    return listPagesIx(this.#pageFetcher(res, this.#decoding(options)), options);
  }

  /** The pages of a list as an Observable (cold: each subscription lists; unsubscribing aborts). */
  listPages$<T extends KubeObject>(res: Resource<T>, options: ListOptions = {}): Observable<ListPage<T>> {
    return listPagesObservable(this.#pageFetcher(res, this.#decoding(options)), options);
  }

  /** Every item of a paged list, page after page, as an Observable. */
  list$<T extends KubeObject>(res: Resource<T>, options: ListOptions = {}): Observable<T> {
    return listItemsObservable(this.#pageFetcher(res, this.#decoding(options)), options);
  }

  /**
   * A watch that never ends by itself: lists (INIT … INIT_DONE), watches from the list's version,
   * resumes from the last version it saw after a disconnect, relists after a 410, and backs off on
   * errors. See WatcherEvent and the state machine in watcher.ts. Cold: each subscription runs its own.
   */
  watch$<T extends KubeObject>(res: Resource<T>, options: WatchOptions = {}): Observable<WatcherEvent<T>> {
    const namespace = res.namespaced ? options.namespace : undefined;
    const decoding = this.#decoding(options);
    return watcher<T>({ transport: this.transport, path: resourcePath(res, namespace), listPage: this.#pageFetcher(res, decoding, namespace), decoding }, options);
  }

  /** Closes idle connections; waits for requests in flight. Unsubscribe watches first. */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** Closes every connection now, watches included. */
  destroy(): Promise<void> {
    return this.transport.destroy();
  }
}

function writeQuery(options: WriteOptions): Record<string, string | undefined> {
  return {
    dryRun: options.dryRun ? 'All' : undefined,
    fieldManager: options.fieldManager,
    fieldValidation: options.fieldValidation,
  };
}

function deleteBody(options: DeleteOptions): { body?: object; query?: Record<string, string | undefined> } {
  const body: Record<string, unknown> = {};
  if (options.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = options.gracePeriodSeconds;
  if (options.propagationPolicy !== undefined) body['propagationPolicy'] = options.propagationPolicy;
  if (options.preconditions !== undefined) body['preconditions'] = options.preconditions;
  if (options.dryRun) body['dryRun'] = ['All'];
  return Object.keys(body).length > 0 ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...body } } : {};
}

function toPage<T>(body: unknown): ListPage<T> {
  if (!isRecord(body) || !Array.isArray(body['items'])) throw new TypeError('the server answered a list without items');
  const meta = isRecord(body['metadata']) ? body['metadata'] : {};
  const cont = typeof meta['continue'] === 'string' && meta['continue'] !== '' ? meta['continue'] : undefined;
  return {
    items: body['items'] as T[],
    resourceVersion: typeof meta['resourceVersion'] === 'string' ? meta['resourceVersion'] : '',
    continue: cont,
    remainingItemCount: typeof meta['remainingItemCount'] === 'number' ? meta['remainingItemCount'] : undefined,
    restarted: false,
  };
}
