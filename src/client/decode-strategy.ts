import {
  ADMISSIONREGISTRATION_GROUP,
  APIEXTENSIONS_GROUP,
  APIREGISTRATION_GROUP,
  APPS_GROUP,
  AUTOSCALING_GROUP,
  BATCH_GROUP,
  CERTIFICATES_GROUP,
  COORDINATION_GROUP,
  CORE_GROUP,
  DISCOVERY_GROUP,
  EVENTS_GROUP,
  POLICY_GROUP,
  RBAC_GROUP,
  upstreamGroupAlias,
  type KubeObject,
} from '../api/index.js';
import { CacheWriter, deepFreeze, type CacheWrites, type IndexFunc } from './cache.js';
import { METADATA_ACCEPT, METADATA_LIST_ACCEPT, type Codec, type WatchFramer } from './wire-codec.js';
import { isJsonContentType, lazyJsonLinesFramer, lazyListDecoder, lazyObjectDecoder } from './lazy/json-decode.js';
import { ViewCacheWriter } from './lazy/view-cache.js';
import type { Resource } from './resource.js';
import type { HttpRequest } from './transport.js';

/**
 * How objects are decoded:
 * - `'eager'`: JSON.parse (or the client codec's decode): plain objects.
 * - `'lazy'`: JSON kept as text; objects are frozen views that decode a field when it is read
 *   (lazy/json-view.ts).
 * - `'protobuf'`: lists and watches ask for protobuf (JSON for kinds without a message, read as
 *   lazy JSON views); objects are frozen views over their message bytes (lazy/proto-view.ts).
 */
export type DecodeMode = 'eager' | 'lazy' | 'protobuf';

/** What a watch request asks for and how its stream is framed (undefined: the transport codec's framer). */
export interface WatchDecoding {
  readonly accept?: string;
  readonly framerFor?: ((contentType: string | undefined) => WatchFramer) | undefined;
}

/**
 * One decode mode, chosen once (per list call, per watch, per informer), answering everything
 * that differs between modes: what a list or watch asks for and how it is read, and how an
 * informer caches what it gets. Nothing else branches on the mode.
 */
export interface DecodeStrategy {
  readonly mode: DecodeMode;
  /** The `accept` and body decoder of a list request. */
  list(metadataOnly: boolean): Promise<Pick<HttpRequest, 'accept' | 'decode'>>;
  /** The `accept` and body decoder of a request answered by one object (a create). */
  object(): Promise<Pick<HttpRequest, 'accept' | 'decode'>>;
  /** The `accept` and framer of a watch request. */
  watch(metadataOnly: boolean): Promise<WatchDecoding>;
  /** A cache of this mode's objects: decoded objects, or records behind views. */
  cache<T extends KubeObject>(indexers: Readonly<Record<string, IndexFunc<T>>>): CacheWrites<T>;
  /** An object about to be cached, frozen when `freeze` (views are frozen by construction). */
  prepare<T>(object: T, freeze: boolean): T;
}

const metadataAccept = (metadataOnly: boolean, accept: string) => (metadataOnly ? { accept } : {});

function eager(): DecodeStrategy {
  return {
    mode: 'eager',
    list: async (metadataOnly) => metadataAccept(metadataOnly, METADATA_LIST_ACCEPT),
    object: async () => ({}),
    watch: async (metadataOnly) => metadataAccept(metadataOnly, METADATA_ACCEPT),
    cache: (indexers) => new CacheWriter(indexers),
    prepare: (object, freeze) => (freeze ? deepFreeze(object) : object),
  };
}

/** What the view modes share: their cache and their objects. */
const views = {
  cache: <T extends KubeObject>(indexers: Readonly<Record<string, IndexFunc<T>>>): CacheWrites<T> => new ViewCacheWriter(indexers),
  prepare: <T>(object: T): T => object,
};

function lazy(codec: Codec): DecodeStrategy {
  const decode = lazyListDecoder(codec);
  const decodeObject = lazyObjectDecoder(codec);
  const framerFor = (contentType: string | undefined) => (isJsonContentType(contentType) ? lazyJsonLinesFramer() : codec.watchFramer(contentType));
  return {
    mode: 'lazy',
    list: async (metadataOnly) => ({ ...metadataAccept(metadataOnly, METADATA_LIST_ACCEPT), decode }),
    object: async () => ({ decode: decodeObject }),
    watch: async (metadataOnly) => ({ ...metadataAccept(metadataOnly, METADATA_ACCEPT), framerFor }),
    ...views,
  };
}

/** The protobuf decoders, loaded on first use (they load protobufjs and svc's schema). */
let protobufDecoders: Promise<typeof import('./lazy/proto-decode.js')> | undefined;
const loadProtobufDecoders = () => (protobufDecoders ??= import('./lazy/proto-decode.js'));

function protobuf(): DecodeStrategy {
  return {
    mode: 'protobuf',
    // Metadata-only lists and watches are asked for in JSON (their view's media type) and read lazily as JSON.
    list: async (metadataOnly) => {
      const { PROTOBUF_ACCEPT, lazyProtobufListDecoder } = await loadProtobufDecoders();
      return { accept: metadataOnly ? METADATA_LIST_ACCEPT : PROTOBUF_ACCEPT, decode: lazyProtobufListDecoder };
    },
    object: async () => {
      const { PROTOBUF_ACCEPT, lazyProtobufObjectDecoder } = await loadProtobufDecoders();
      return { accept: PROTOBUF_ACCEPT, decode: lazyProtobufObjectDecoder };
    },
    watch: async (metadataOnly) => {
      const { PROTOBUF_ACCEPT, lazyFramerFor } = await loadProtobufDecoders();
      return { accept: metadataOnly ? METADATA_ACCEPT : PROTOBUF_ACCEPT, framerFor: lazyFramerFor };
    },
    ...views,
  };
}

/** The strategy of `mode`; `codec` is the transport's (what eager and lazy fall back to for other encodings). */
export function decodeStrategy(mode: DecodeMode, codec: Codec): DecodeStrategy {
  switch (mode) {
    case 'eager':
      return eager();
    case 'lazy':
      return lazy(codec);
    case 'protobuf':
      return protobuf();
  }
}

/** The groups whose kinds svc-apiserver has built in (and serves in protobuf when it has their message). */
const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  CORE_GROUP,
  APPS_GROUP,
  BATCH_GROUP,
  AUTOSCALING_GROUP,
  POLICY_GROUP,
  COORDINATION_GROUP,
  DISCOVERY_GROUP,
  RBAC_GROUP,
  CERTIFICATES_GROUP,
  EVENTS_GROUP,
  APIEXTENSIONS_GROUP,
  ADMISSIONREGISTRATION_GROUP,
  APIREGISTRATION_GROUP,
]);

/**
 * The fastest safe mode for a cache of `res`: protobuf views for built-in kinds, lazy JSON views
 * for custom resources (which have no protobuf message). Safe because either way a reply in
 * another encoding (a kind the server has no message for, a server that answers only JSON) is
 * read as lazy JSON views, and cached objects are frozen whatever the mode.
 */
export function fastestDecodeMode(res: Resource<KubeObject>): 'protobuf' | 'lazy' {
  return BUILTIN_GROUPS.has(upstreamGroupAlias(res.group)) ? 'protobuf' : 'lazy';
}
