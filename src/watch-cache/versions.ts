import type { KeyValue } from '../storage/index.js';
import { CachedVersion, deepFreeze } from './cached-object.js';

export interface VersionCodec<T> {
  decode(kv: KeyValue, revision: number): T;
  encode(object: T): Uint8Array;
  /** Told about a stored value `decode` rejects; the cache then treats the key as absent. */
  onDecodeError?(key: string, error: unknown): void;
}

/** Turns stored values into frozen CachedVersions, the one place the cache calls `decode`. */
export class Versions<T> {
  constructor(private readonly codec: VersionCodec<T>) {}

  /** The version `kv` holds, stamped with its modRevision; undefined when it cannot be decoded. */
  fromKeyValue(kv: KeyValue, stamp = kv.modRevision): CachedVersion<T> | undefined {
    let object: T;
    try {
      object = deepFreeze(this.codec.decode(kv, stamp));
    } catch (error) {
      this.codec.onDecodeError?.(kv.key, error);
      return undefined;
    }
    return new CachedVersion(kv.key, stamp, kv.createRevision, object, this.codec.encode);
  }

  /**
   * The object a DELETED event carries: the last state, stamped with the delete's revision.
   * `lastValue` is the stored bytes of that state when the store reported them; otherwise the
   * cached version's own bytes are decoded again (decode must accept encode's output, which
   * holds when the store keeps JSON). If neither works the last version is sent unchanged.
   */
  deleted(key: string, revision: number, last: CachedVersion<T> | undefined, lastValue?: Uint8Array): CachedVersion<T> | undefined {
    const value = lastValue ?? last?.bytes();
    if (value === undefined) return undefined;
    const kv: KeyValue = { key, value, modRevision: last?.revision ?? revision, createRevision: last?.createRevision ?? 0 };
    const stamped = this.fromKeyValue(kv, revision);
    if (stamped || !last) return stamped;
    return new CachedVersion(key, revision, last.createRevision, last.object, this.codec.encode);
  }
}
