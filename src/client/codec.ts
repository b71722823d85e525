/**
 * The client's codec seam: how request bodies are encoded and responses and watch frames decoded.
 * Only JSON is wired today; protobuf and CBOR codecs built on src/encoding (its envelope,
 * decoders and watch framing) plug in here.
 */

/** The metadata-only views (meta.svc.io/v1): lists ask for the List form, objects and watches for the item form. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1';
export const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1';

/** Encodes request bodies, decodes response bodies, and splits a watch stream into frames. */
export interface Codec {
  /** Sent as `Accept` and, for bodies this codec encodes, `Content-Type`. */
  readonly mediaType: string;
  encode(value: unknown): string | Uint8Array;
  decode(bytes: Uint8Array | string): unknown;
  /** A fresh splitter for one watch stream: feed it chunks, get back whole decoded frames. */
  watchFramer(): WatchFramer;
}

export interface WatchFramer {
  /** Every frame completed by `chunk`, decoded, in order. */
  push(chunk: Uint8Array): unknown[];
}

/** JSON, and JSON-lines watch framing (one document per line, as svc-apiserver and Kubernetes send). */
export const jsonCodec: Codec = Object.freeze({
  mediaType: 'application/json',
  encode: (value: unknown) => JSON.stringify(value),
  decode: (bytes: Uint8Array | string) => JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')),
  watchFramer(): WatchFramer {
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
  },
});
