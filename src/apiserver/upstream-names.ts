import { upstreamGroupName } from '../api/index.js';

/** Rewrites a response's bytes; the identity when nothing in them needs it. */
export type Renamer = (bytes: Uint8Array) => Uint8Array;

const renamers = new Map<string, Renamer>();

/**
 * For a request that named a group the upstream way (`rbac.authorization.k8s.io`), the function
 * that stamps its answer with that name: every `<svc group>/` (as in `apiVersion`) becomes
 * `<upstream group>/`. The two names differ only in `svc.io` ↔ `k8s.io`, which have the same
 * length, so the bytes are rewritten in place of a copy — JSON, YAML, protobuf and CBOR alike,
 * without decoding them (no length prefix moves). Only the request's own group is renamed: other
 * groups named inside an object (an owner's apiVersion) are left as they were written.
 * Undefined for a group svc serves under its own name only.
 */
export function upstreamRenamer(svcGroup: string): Renamer | undefined {
  const upstream = upstreamGroupName(svcGroup);
  if (upstream === svcGroup) return undefined;
  let renamer = renamers.get(svcGroup);
  if (!renamer) {
    const from = Buffer.from(`${svcGroup}/`);
    const to = Buffer.from(`${upstream}/`);
    renamer = (bytes) => {
      const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let at = view.indexOf(from);
      if (at < 0) return bytes;
      const out = Buffer.from(view);
      while (at >= 0) {
        to.copy(out, at);
        at = out.indexOf(from, at + from.length);
      }
      return out;
    };
    renamers.set(svcGroup, renamer);
  }
  return renamer;
}

/** A renamer applied to text (answers built as strings). */
export const renameText = (rename: Renamer, text: string): Uint8Array => rename(Buffer.from(text));
