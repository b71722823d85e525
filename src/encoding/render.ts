import type { ResourceType } from '../api/index.js';
import { codecOf } from './response-codecs.js';
import { parseObject, type JsonObject } from './json-value.js';
import { cachedRaw, envelope, protobufEventFrame } from './protobuf/envelope.js';
import type { Representation } from './negotiate.js';
import { jsonViewListChunks, listInView, objectInView, type ListMetadata, type ViewOptions } from './views.js';

/** How one response is written: the negotiated representation and what its views need. */
export interface RenderOptions {
  readonly rep: Representation;
  /** `pretty=true`: indented JSON. */
  readonly pretty: boolean;
  readonly view: ViewOptions;
  readonly kind: string;
  readonly listKind: string;
  readonly apiVersion: string;
}

/** The options for a type's responses. */
export function renderOptions(rep: Representation, type: Pick<ResourceType, 'kind' | 'listKind'>, apiVersion: string, view: ViewOptions, pretty: boolean): RenderOptions {
  return { rep, pretty, view, kind: type.kind, listKind: type.listKind, apiVersion };
}

/** One object, from its JSON bytes (sent as they are for plain JSON). */
export function renderObject(options: RenderOptions, json: Uint8Array): Uint8Array {
  const { rep, pretty } = options;
  if (rep.codec === 'json' && rep.view === 'Object' && !pretty) return json;
  // The version's message bytes are cached with it: a repeated protobuf get encodes nothing.
  if (rep.codec === 'protobuf' && rep.view === 'Object') return envelope(options.apiVersion, options.kind, cachedRaw(json));
  return codecOf(rep.codec).encode(objectInView(parseObject(json), options.view), pretty);
}

/** A decoded value (a write's answer) in the negotiated codec. */
export function renderValue(options: RenderOptions, value: JsonObject): Uint8Array {
  return codecOf(options.rep.codec).encode(options.rep.view === 'Object' ? value : objectInView(value, options.view), options.pretty);
}

/**
 * A list as chunks. JSON views are written item by item; protobuf lists too (its codec has a
 * streaming writer); YAML, CBOR and pretty JSON are encoded as one value.
 */
export function renderList(options: RenderOptions, metadata: ListMetadata, items: Iterable<Uint8Array>): Iterable<Uint8Array> {
  const { rep, pretty } = options;
  if (rep.codec === 'json' && !pretty && rep.view !== 'Object') return jsonViewListChunks(metadata, items, options.view);
  const streaming = listStreamers[rep.codec];
  if (streaming && !pretty && rep.view === 'Object') return streaming(options, metadata, items);
  return [codecOf(rep.codec).encode(listInView({ listKind: options.listKind, apiVersion: options.apiVersion }, metadata, items, options.view), pretty)];
}

/** A codec's item-by-item list writer, where it has one. */
export type ListStreamer = (options: RenderOptions, metadata: ListMetadata, items: Iterable<Uint8Array>) => Iterable<Uint8Array>;
const listStreamers: Partial<Record<Representation['codec'], ListStreamer>> = {};

export function registerListStreamer(codec: Representation['codec'], streamer: ListStreamer): void {
  listStreamers[codec] = streamer;
}

/**
 * The last frame encoded per representation (codec, view, type): the hub hands one event to every
 * watcher in one synchronous pass, so the watchers of one representation share one encoding of it,
 * as a version's JSON bytes are shared. One entry per representation in use: bounded.
 */
const lastFrames = new Map<string, { readonly json: Uint8Array; readonly type: string; readonly bytes: Uint8Array }>();

/**
 * The watch frames of one watch in a representation other than plain JSON. Table events carry
 * the column definitions in the first event only (as Kubernetes sends them).
 */
export function watchFrames(options: RenderOptions) {
  const codec = codecOf(options.rep.codec);
  const { rep, view } = options;
  const shareKey = [rep.codec, rep.view, rep.viewGroup, rep.viewVersion, view.includeObject, options.apiVersion, options.kind].join('|');
  let columnsSent = false;
  const metadataOnly = (metadata: JsonObject): JsonObject => {
    switch (options.rep.view) {
      case 'Object':
        return { kind: options.kind, apiVersion: options.apiVersion, metadata };
      case 'Table':
        return { kind: 'Table', apiVersion: `${options.rep.viewGroup}/${options.rep.viewVersion}`, metadata, rows: [] };
      default:
        return { kind: 'PartialObjectMetadata', apiVersion: `${options.rep.viewGroup}/${options.rep.viewVersion}`, metadata };
    }
  };
  return {
    event(type: string, json: Uint8Array): Uint8Array {
      if (options.rep.codec === 'protobuf' && options.rep.view === 'Object') return protobufEventFrame(type, options.apiVersion, options.kind, json);
      // A Table watch's first event carries the column definitions: that frame is its own.
      const shareable = !(rep.view === 'Table' && !columnsSent);
      if (rep.view === 'Table') columnsSent = true;
      const last = shareable ? lastFrames.get(shareKey) : undefined;
      if (last && last.json === json && last.type === type) return last.bytes;
      // Age cells are computed when the event is encoded, not when the watch began.
      const object = objectInView(parseObject(json), { ...options.view, now: Date.now() }, !shareable);
      const bytes = codec.frame(type, object);
      if (shareable) lastFrames.set(shareKey, { json, type, bytes });
      return bytes;
    },
    bookmark(resourceVersion: number, annotations?: Record<string, string>): Uint8Array {
      return codec.frame('BOOKMARK', metadataOnly({ resourceVersion: String(resourceVersion), ...(annotations ? { annotations } : {}) }));
    },
    error(status: JsonObject): Uint8Array {
      return codec.frame('ERROR', status);
    },
  };
}
