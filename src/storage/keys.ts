import { invalid } from './storage-error.js';

/**
 * Key rules shared by every backend. Keys are printable ASCII (0x21–0x7e) so that JavaScript,
 * SQLite (BINARY collation) and etcd (byte order) sort them identically, and they lie under the
 * store's prefix. The largest key accepted is well above what `/registry/<resource>/<ns>/<name>`
 * needs and below etcd's request limits.
 */
export const MAX_KEY_LENGTH = 1024;

const PRINTABLE = /^[\x21-\x7e]+$/;

export const DEFAULT_PREFIX = '/registry/';

export function checkPrefixOption(prefix: string): string {
  if (typeof prefix !== 'string' || !PRINTABLE.test(prefix) || !prefix.startsWith('/') || !prefix.endsWith('/')) {
    throw invalid(`store prefix must be printable ASCII starting and ending with "/", got ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

/** Throws InvalidArgument unless `key` is a well-formed key under `storePrefix`. */
export function checkKey(key: unknown, storePrefix: string): string {
  if (typeof key !== 'string' || key.length === 0) throw invalid('key must be a non-empty string');
  if (key.length > MAX_KEY_LENGTH) throw invalid(`key is longer than ${MAX_KEY_LENGTH} characters`, { key });
  if (!PRINTABLE.test(key)) throw invalid(`key ${JSON.stringify(key)} must be printable ASCII without spaces`, { key });
  if (!key.startsWith(storePrefix) || key.length === storePrefix.length) {
    throw invalid(`key ${JSON.stringify(key)} is outside the store prefix ${JSON.stringify(storePrefix)}`, { key });
  }
  return key;
}

/** A list or watch prefix: the store prefix itself or any key-shaped string under it. */
export function checkRangePrefix(prefix: unknown, storePrefix: string): string {
  if (prefix === storePrefix) return storePrefix;
  return checkKey(prefix, storePrefix);
}

/** Throws InvalidArgument unless `revision` is a non-negative safe integer. */
export function checkRevision(revision: unknown, what = 'revision'): number {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
    throw invalid(`${what} must be a non-negative integer, got ${String(revision)}`);
  }
  return revision;
}

export function checkLimit(limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw invalid(`limit must be a non-negative integer, got ${String(limit)}`);
  }
  return limit;
}

/** A write's `ttlSeconds` (undefined: none); InvalidArgument unless a whole number of seconds, at least 1. */
export function checkTtl(options: { readonly ttlSeconds?: number } | undefined): number | undefined {
  const ttl: unknown = options?.ttlSeconds;
  if (ttl === undefined) return undefined;
  if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 1) {
    throw invalid(`ttlSeconds must be a whole number of seconds, at least 1, got ${String(ttl)}`);
  }
  return ttl;
}

/** How many due keys `expire` deletes at a time unless told otherwise. */
export const EXPIRE_BATCH = 1000;

/** The first key after every key that starts with `prefix` (etcd's range_end for a prefix). */
export function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/** Where a list of `prefix` starts: `startKey` when given (it must lie under the prefix). */
export function rangeStart(prefix: string, startKey: string | undefined, storePrefix: string): string {
  if (startKey === undefined) return prefix;
  checkKey(startKey, storePrefix);
  if (!startKey.startsWith(prefix)) {
    throw invalid(`startKey ${JSON.stringify(startKey)} is not under the listed prefix ${JSON.stringify(prefix)}`, {
      key: startKey,
    });
  }
  return startKey;
}
