import {
  decodeProtobuf,
  decodeProtobufWatchEvent,
  encodeProtobuf,
  hasProtobufMessage,
  isObject,
  KUBE_PROTOBUF_MEDIA_TYPE,
  PROTOBUF_MEDIA_TYPE,
} from '../encoding/index.js';
import { internal, type StatusError } from '../api/index.js';
import { jsonCodec, jsonLinesFramer, type Codec, type EncodedBody, type WatchFramer } from './wire-codec.js';

/** The largest watch frame accepted (a frame says its own length; a garbled one must not make us wait for gigabytes). */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const isProtobuf = (contentType: string | undefined): boolean =>
  contentType !== undefined && (contentType.startsWith(PROTOBUF_MEDIA_TYPE) || contentType.startsWith(KUBE_PROTOBUF_MEDIA_TYPE));

/** A reply the codec cannot read is the server's fault, not the caller's: a 500 on our side, naming why. */
function unreadable(what: string, error: unknown): StatusError {
  const reason = error instanceof Error ? error.message : String(error);
  return internal(new Error(`the server's ${what} cannot be decoded as protobuf: ${reason}`, { cause: error }));
}

/**
 * Length-prefixed protobuf watch frames (`application/vnd.svc.protobuf;stream=watch`): a 4-byte
 * big-endian length, then a WatchEvent whose object is an envelope of its own.
 */
function protobufFramer(): WatchFramer {
  let pending: Uint8Array = new Uint8Array(0);
  return {
    push(chunk: Uint8Array): unknown[] {
      let buffer: Uint8Array = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const out: unknown[] = [];
      let at = 0;
      while (buffer.length - at >= 4) {
        const length = new DataView(buffer.buffer, buffer.byteOffset + at, 4).getUint32(0, false);
        if (length > MAX_FRAME_BYTES) throw unreadable('watch stream', new Error(`a frame of ${length} bytes is larger than ${MAX_FRAME_BYTES}`));
        if (buffer.length - at - 4 < length) break;
        const frame = buffer.subarray(at + 4, at + 4 + length);
        try {
          out.push(decodeProtobufWatchEvent(frame));
        } catch (error) {
          throw unreadable('watch event', error);
        }
        at += 4 + length;
      }
      // Keep only the incomplete tail (copied, so the chunk it came from can be collected).
      pending = at === buffer.length ? new Uint8Array(0) : Uint8Array.from(buffer.subarray(at));
      buffer = pending;
      return out;
    },
  };
}

/**
 * The protobuf codec, as the daemons use it by default (`--svc-api-content-type
 * application/vnd.svc.protobuf`). It asks for protobuf with JSON as the fallback, the way
 * client-go does, and reads whichever the server answers: types without a protobuf message
 * (custom types) come back as JSON. Objects of kinds with a message are sent as protobuf, others
 * as JSON. A reply that says protobuf but lacks the `k8s\0` prefix is rejected.
 */
export const protobufCodec: Codec = Object.freeze({
  mediaType: `${PROTOBUF_MEDIA_TYPE}, application/json;q=0.9`,
  encode(value: unknown): EncodedBody {
    if (isObject(value) && hasProtobufMessage(String(value['apiVersion'] ?? ''), String(value['kind'] ?? ''))) {
      return { body: encodeProtobuf(value), contentType: PROTOBUF_MEDIA_TYPE };
    }
    return jsonCodec.encode(value);
  },
  decode(bytes: Uint8Array | string, contentType?: string): unknown {
    if (!isProtobuf(contentType)) return jsonCodec.decode(bytes, contentType);
    const body = typeof bytes === 'string' ? Buffer.from(bytes, 'binary') : bytes;
    try {
      return decodeProtobuf(body);
    } catch (error) {
      throw unreadable('reply', error);
    }
  },
  watchFramer(contentType?: string): WatchFramer {
    return isProtobuf(contentType) ? protobufFramer() : jsonLinesFramer();
  },
});
