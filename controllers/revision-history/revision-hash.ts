import { canonicalJson, SAFE_ALPHABET } from '../../src/api/index.js';

/** 32-bit FNV-1a of the bytes, as Go's hash/fnv New32a. */
function fnv32a(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** Kubernetes' rand.SafeEncodeString: each character replaced by one of the safe alphabet, so the result has no vowels and fits a name. */
export function safeEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += SAFE_ALPHABET[text.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/**
 * A revision's hash, as upstream's HashControllerRevision: FNV-1a over the revision's data and,
 * when there has been a collision, the collision count in decimal; the 32-bit sum in decimal,
 * safe-encoded. The data is hashed as canonical JSON (sorted keys), so a template read back from
 * the cache in another key order hashes the same.
 */
export function hashRevision(data: unknown, collisionCount?: number): string {
  const text = canonicalJson(data) + (collisionCount !== undefined && collisionCount > 0 ? String(collisionCount) : '');
  return safeEncode(String(fnv32a(new TextEncoder().encode(text))));
}
