/**
 * The client's codec seam: how request bodies are encoded and responses and watch frames decoded.
 * JSON is built in; the protobuf codec (`loadProtobufCodec`) is loaded on demand so that a client
 * that never asks for it never loads protobufjs.
 */

/** The metadata-only views (meta.svc.io/v1): lists ask for the List form, objects and watches for the item form. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1';
export const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1';

/** A request body and the media type it is in. */
export interface EncodedBody {
  readonly body: string | Uint8Array;
  readonly contentType: string;
}

/**
 * Encodes request bodies, decodes response bodies, and splits a watch stream into frames.
 * Responses are decoded by their `Content-Type`: a codec that asks for a binary type with JSON
 * as the fallback (as client-go does) must read whichever the server chose.
 */
export interface Codec {
  /** Sent as `Accept` on every request that does not ask for a view of its own. */
  readonly mediaType: string;
  /** An object as a request body (create, update); patches are always JSON. */
  encode(value: unknown): EncodedBody;
  /** A response body, by the response's `Content-Type` (absent: the codec's own type). */
  decode(bytes: Uint8Array | string, contentType?: string): unknown;
  /** A fresh splitter for one watch stream, by the response's `Content-Type`. */
  watchFramer(contentType?: string): WatchFramer;
}

export interface WatchFramer {
  /** Every frame completed by `chunk`, decoded, in order. */
  push(chunk: Uint8Array): unknown[];
}

const utf8 = (bytes: Uint8Array | string) => (typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));

/** JSON-lines watch framing (one document per line, as svc-apiserver and Kubernetes send). */
export function jsonLinesFramer(): WatchFramer {
  // Decoded text of an incomplete line. TextDecoder in stream mode keeps a multi-byte character
  // split across chunks for the next one.
  const decoder = new TextDecoder();
  let rest = '';
  return {
    push(chunk: Uint8Array): unknown[] {
      const text = rest + decoder.decode(chunk, { stream: true });
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      const out: unknown[] = [];
      for (const line of lines) if (line.length > 0 && line !== '\r') out.push(JSON.parse(line));
      return out;
    },
  };
}

/** JSON, whatever the response says (a server that answers JSON to a JSON client). */
export const jsonCodec: Codec = Object.freeze({
  mediaType: 'application/json',
  encode: (value: unknown): EncodedBody => ({ body: JSON.stringify(value), contentType: 'application/json' }),
  decode: (bytes: Uint8Array | string) => JSON.parse(utf8(bytes)),
  watchFramer: jsonLinesFramer,
});
