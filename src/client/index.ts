// The client of svc-apiserver: svcconfig loading, CRUD, paged lists, the resuming watcher and informers.

export { SERVERS_EXTENSION, SvcconfigError, loadSvcconfig, readSvcconfigFile, resolveSvcconfig, writeSvcconfig } from './svcconfig.js';
export type { SvcconfigEntry, SvcconfigFile, SvcconfigTarget } from './svcconfig.js';
export { IN_CLUSTER_DIR, resolveEnvConfig } from './env-config.js';
export type { EnvConfig, EnvConfigOptions } from './env-config.js';
export { fileTokenSource, TOKEN_FILE_PERIOD_MS } from './token-file.js';
export type { FileTokenSourceOptions } from './token-file.js';
export type { BindOptions, EvictOptions, PodLogOptions, Scale, TokenRequestSpec } from './subresource.js';
export { jsonCodec, jsonLinesFramer } from './wire-codec.js';
export type { Codec, EncodedBody, WatchFramer } from './wire-codec.js';
/**
 * The protobuf codec (application/vnd.svc.protobuf with a JSON fallback), loaded on demand so a
 * JSON client never loads protobufjs: `new Client({ ..., codec: await loadProtobufCodec() })`.
 */
export const loadProtobufCodec = async (): Promise<import('./wire-codec.js').Codec> => (await import('./protobuf-codec.js')).protobufCodec;
export { Transport } from './transport.js';
export type { ConnectionOptions, HttpRequest, RequestThrottle, StreamResponse } from './transport.js';
export { isExpired, isTooLargeResourceVersion, statusErrorFrom } from './status.js';
export { builtin, objectKey, resource, resourcePath, typedResource } from './resource.js';
export type { ObjectOf, Resource } from './resource.js';
export { Client, isSuccessStatus, PATCH_TYPES } from './client.js';
export { ExecSession } from './exec-session.js';
export type { AttachOptions, ExecOptions, ExecResult } from './exec-session.js';
export { PortForwardSession } from './port-forward.js';
export type { ForwardPortOptions, PortForwarder, PortForwardOptions } from './port-forward.js';
export type {
  ClientOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  DeleteResult,
  JsonPatchOperation,
  PatchOptions,
  PatchType,
  SuccessStatus,
  WriteOptions,
} from './client.js';
export { decodeStrategy, fastestDecodeMode } from './decode-strategy.js';
export type { DecodeMode, DecodeStrategy, WatchDecoding } from './decode-strategy.js';
export { DEFAULT_PAGE_SIZE } from './list.js';
export type { ExpiredPolicy, ListOptions, ListPage, PageFetcher } from './list.js';
export { Backoff } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { WatchFrameError, WatchStalledError, watchEvents } from './watch-stream.js';
export type { RawWatchEvent } from './watch-stream.js';
export { INITIAL_EVENTS_END, watcher } from './watcher.js';
export type { InitReason, WatcherDeps, WatcherEvent, WatchOptions } from './watcher.js';
export { CacheWriter, deepFreeze, indexOn, LABELS_INDEX, labelsIndex, NAMESPACE_INDEX, namespaceIndex } from './cache.js';
export type { CacheChange, CacheReader, CacheWrites, IndexFunc } from './cache.js';
export { OWNER_INDEX, ownerIndex, orphansKey } from './owner-index.js';
export { deletionTimestampOf, resourceVersionOf, sameMembers, sameOwnerReferences } from './lazy/cached-record.js';
export { Informer, InformerFactory, stripManagedFields } from './informer.js';
export type { InformerEvent, InformerFactoryOptions, InformerOptions } from './informer.js';
export { discoverResources, groupVersionResources, supports, typeAtVersion } from './discovery.js';
export { DiscoveryCache } from './discovery-cache.js';
export type { DiscoveryCacheOptions } from './discovery-cache.js';
export type { GroupVersionEntry } from './discovery.js';
export type { ApiResource, Discovery, DiscoveryFailure, ServedGroupVersion, TypeAtVersion } from './discovery.js';
export { customResourceDefinitions, defineCustomResource, isCustomResource } from './custom-resource.js';
export type { CustomObject, CustomObjectOf, CustomResource, CustomResourceInit, CustomResourceNames, CustomResourcePrinterColumn } from './custom-resource.js';
// Events, best effort and counted, as client-go's recorder writes them (docs/client.md#events).
export { EventRecorder } from './event-recorder.js';
export type { EventRecorderOptions, EventSink, EventType, InvolvedObject } from './event-recorder.js';
