import type { JsonObject } from '../json-value.js';

/**
 * Embedded JSON (a managedFields entry's FieldsV1) that its maker never changes in place, shared
 * by the protobuf encoder and decoder of one process.
 *
 * Why: a node renews its Lease every 10 s by sending back the Lease it was answered, and with it
 * the managedFields entry the API server wrote, whose FieldsV1 travels as JSON text in bytes. The
 * server parsed that text on every renewal (a JSON.parse whose keys are unique per node: the
 * owner reference's `k:{...uid...}`, so V8 also made a new hidden class for each) only to find it
 * equal, key by key, to the entry it holds (docs/benchmarks.md, branch renewcost). Each such
 * entry's FieldsV1 is one object, kept from version to version while the manager's fields stay
 * the same (src/apiserver/writes/field-set.ts, `fieldsV1Of`).
 *
 * How: the API server marks each FieldsV1 it makes as shared (`shareEmbeddedJson`); the first
 * protobuf encoding of a marked value keeps its bytes (later encodings reuse them) and notes the
 * value under its text. A decoder that asks for it (`decodeProtobuf(body, { sharedJson: true })`,
 * the API server's request bodies) gets that very value back for the same text instead of a
 * parse: equal, as the parse would be (JSON text of plain JSON parses back to an equal value, its
 * keys in their order), and found equal to the stored entry by identity. Values are held weakly:
 * a value no object holds any more is collected and its text forgotten, so the table holds one
 * text per live value, and values live as long as the objects the process keeps anyway hold them
 * (in the API server, the versions kept as the next write's guess: written-objects.ts, bounded).
 * Noting a value costs its text's hash and a weak reference, once per value, not per version.
 * Other processes (clients) mark nothing and decode as before.
 */

const utf8 = new TextEncoder();
const shared = new WeakSet<object>();
const bytesOf = new WeakMap<object, Uint8Array>();
const byText = new Map<string, WeakRef<JsonObject>>();
const forget = new FinalizationRegistry<string>((text) => {
  // Another value with the same text may have been noted since: only a collected one goes.
  if (byText.get(text)?.deref() === undefined) byText.delete(text);
});

/** Marks `value` as never changed in place from now on: its encodings and decodings may share it. */
export function shareEmbeddedJson(value: JsonObject): void {
  shared.add(value);
}

/** The UTF-8 JSON text of `value`, as embedded bytes: made once for a shared value. */
export function embeddedJsonBytes(value: unknown): Uint8Array {
  if (typeof value !== 'object' || value === null || !shared.has(value)) return utf8.encode(JSON.stringify(value));
  let bytes = bytesOf.get(value);
  if (bytes === undefined) {
    const text = JSON.stringify(value);
    bytes = utf8.encode(text);
    bytesOf.set(value, bytes);
    byText.set(text, new WeakRef(value as JsonObject));
    forget.register(value, text);
  }
  return bytes;
}

/** The shared value whose encoding was `text`, while it lives; undefined for any other text. */
export function sharedEmbeddedJson(text: string): JsonObject | undefined {
  return byText.size === 0 ? undefined : byText.get(text)?.deref();
}
