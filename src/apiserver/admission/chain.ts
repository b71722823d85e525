import type { ResourceType } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import { withObject, type AdmissionAttributes, type AdmissionOperation } from './attributes.js';
import type { AdmissionPlugin, AdmissionRequestScope } from './plugin.js';

interface KindPlugins {
  readonly mutating: readonly AdmissionPlugin[];
  readonly validating: readonly AdmissionPlugin[];
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

/**
 * The admission chain: every enabled plugin's `admit` in order, each seeing the previous one's
 * object; then, if anything changed the object, `revalidate` (the schema and metadata checks the
 * handler already ran on the client's object, so a mutation cannot store what a client could
 * not); then every `validate` in order on the final object. Returns the object to store.
 *
 * Each kind of request (operation, type, subresource) runs only the plugins whose `appliesTo`
 * takes it, decided once; a plugin that answers at once is not awaited (most writes pass every
 * plugin without a single asynchronous step, and each await is a trip through the microtask queue).
 */
export class AdmissionChain {
  readonly #mutating: readonly AdmissionPlugin[];
  readonly #validating: readonly AdmissionPlugin[];
  // By type, then by operation and subresource: types are few and live as long as the server.
  readonly #byKind = new WeakMap<ResourceType, Map<string, KindPlugins>>();

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    this.#mutating = plugins.filter((p) => p.admit);
    this.#validating = plugins.filter((p) => p.validate);
  }

  #pluginsFor(operation: AdmissionOperation, type: ResourceType, subresource: string): KindPlugins {
    let kinds = this.#byKind.get(type);
    if (!kinds) this.#byKind.set(type, (kinds = new Map()));
    const key = `${operation}/${subresource}`;
    let found = kinds.get(key);
    if (!found) {
      const kind = { operation, type, subresource };
      const applies = (plugin: AdmissionPlugin) => plugin.appliesTo?.(kind) ?? true;
      found = { mutating: this.#mutating.filter(applies), validating: this.#validating.filter(applies) };
      kinds.set(key, found);
    }
    return found;
  }

  async run(
    attrs: AdmissionAttributes,
    scope: AdmissionRequestScope,
    revalidate: (object: ApiObject) => ApiObject = (object) => object,
  ): Promise<ApiObject | undefined> {
    const { mutating, validating } = this.#pluginsFor(attrs.operation, attrs.type, attrs.subresource);
    let current = attrs;
    for (const plugin of mutating) {
      const answer = plugin.admit!(current, scope);
      const next = isPromise(answer) ? await answer : answer;
      if (next !== undefined && next !== current.object) current = withObject(current, next);
    }
    if (current.object !== undefined && current.object !== attrs.object) current = withObject(current, revalidate(current.object));
    for (const plugin of validating) {
      const answer = plugin.validate!(current, scope);
      if (isPromise(answer)) await answer;
    }
    return current.object;
  }
}
