import { RECORD, type CachedRecord } from './cached-record.js';

type Target = Record<string, unknown>;

/**
 * What every lazy view's Proxy handler shares, JSON (json-view.ts) or protobuf (proto-view.ts):
 * the target starts empty and `get` of a member decodes that member alone (`member`, the one
 * thing an encoding has to say). Every other operation — keys, `in`, descriptors, freezing
 * checks, writes — first makes the view whole (`fillMembers`: every member defined on the
 * target in the object's key order) and freezes it: from then on the view is a frozen plain
 * object behind a Proxy, and a write fails as on any frozen object.
 */
export abstract class ViewHandler implements ProxyHandler<Target> {
  #full = false;

  /** Set on an object's top-level view: what `recordOf(view)` answers. */
  abstract readonly record: CachedRecord | undefined;

  /** The value of the member `key`, decoded now (or memoized); undefined when the object has none. */
  protected abstract member(target: Target, key: string): unknown;

  /** Defines every member on `target` (the caller freezes it). */
  protected abstract fillMembers(target: Target): void;

  protected get full(): boolean {
    return this.#full;
  }

  protected fill(target: Target): void {
    if (this.#full) return;
    this.fillMembers(target);
    Object.freeze(target);
    this.#full = true;
  }

  get(target: Target, key: string | symbol): unknown {
    if (key === RECORD) return this.record;
    if (this.#full || typeof key !== 'string') return Reflect.get(target, key);
    return this.member(target, key);
  }

  has(target: Target, key: string | symbol): boolean {
    this.fill(target);
    return Reflect.has(target, key);
  }

  ownKeys(target: Target): (string | symbol)[] {
    this.fill(target);
    return Reflect.ownKeys(target);
  }

  getOwnPropertyDescriptor(target: Target, key: string | symbol): PropertyDescriptor | undefined {
    this.fill(target);
    return Reflect.getOwnPropertyDescriptor(target, key);
  }

  defineProperty(target: Target, key: string | symbol, descriptor: PropertyDescriptor): boolean {
    this.fill(target);
    return Reflect.defineProperty(target, key, descriptor);
  }

  deleteProperty(target: Target, key: string | symbol): boolean {
    this.fill(target);
    return Reflect.deleteProperty(target, key);
  }

  set(target: Target, key: string | symbol, value: unknown): boolean {
    this.fill(target);
    return Reflect.set(target, key, value);
  }

  isExtensible(target: Target): boolean {
    this.fill(target);
    return Reflect.isExtensible(target);
  }

  preventExtensions(target: Target): boolean {
    this.fill(target);
    return Reflect.preventExtensions(target);
  }

  setPrototypeOf(target: Target, proto: object | null): boolean {
    this.fill(target);
    return Reflect.setPrototypeOf(target, proto);
  }
}
