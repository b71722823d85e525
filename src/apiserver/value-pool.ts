/**
 * Shares equal values between the objects a watch cache holds. A hundred thousand pods repeat the
 * same few label sets, phases, node and namespace names; each decoded copy costs tens of bytes,
 * one shared copy costs nothing per object. Bounded: once `capacity` values are pooled, new ones
 * are returned as they are (a pool of unique values would only add its own overhead).
 */
export class ValuePool<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly capacity = 20_000) {}

  /** The pooled value for `key`, pooling `value` under it when there is room. */
  share(key: string, value: V): V {
    const pooled = this.values.get(key);
    if (pooled !== undefined) return pooled;
    if (this.values.size < this.capacity) this.values.set(key, value);
    return value;
  }

  get size(): number {
    return this.values.size;
  }
}

/** Strings longer than this are rarely repeated: they are not pooled. */
const MAX_POOLED_LENGTH = 64;

/** A pool of short strings. */
export class StringPool extends ValuePool<string> {
  intern(text: string): string {
    return text.length > MAX_POOLED_LENGTH ? text : this.share(text, text);
  }
}
