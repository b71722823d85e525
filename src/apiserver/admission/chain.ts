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
 * takes it, decided once; a plugin that answers at once is not awaited, and a chain whose plugins
 * all answered at once answers at once itself (most writes pass every plugin without a single
 * asynchronous step, and each await is a trip through the microtask queue: a Lease renewal's
 * admission was two promises and two trips, for plugins that had nothing to wait for).
 */
export class AdmissionChain {
  readonly #mutating: readonly AdmissionPlugin[];
  readonly #validating: readonly AdmissionPlugin[];
  // By type, then by operation, then by subresource: types are few and live as long as the server
  // (nested maps, not a key string made per request).
  readonly #byKind = new WeakMap<ResourceType, Map<AdmissionOperation, Map<string, KindPlugins>>>();

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    this.#mutating = plugins.filter((p) => p.admit);
    this.#validating = plugins.filter((p) => p.validate);
  }

  #pluginsFor(operation: AdmissionOperation, type: ResourceType, subresource: string): KindPlugins {
    let operations = this.#byKind.get(type);
    if (!operations) this.#byKind.set(type, (operations = new Map()));
    let subresources = operations.get(operation);
    if (!subresources) operations.set(operation, (subresources = new Map()));
    let found = subresources.get(subresource);
    if (!found) {
      const kind = { operation, type, subresource };
      const applies = (plugin: AdmissionPlugin) => plugin.appliesTo?.(kind) ?? true;
      found = { mutating: this.#mutating.filter(applies), validating: this.#validating.filter(applies) };
      subresources.set(subresource, found);
    }
    return found;
  }

  /**
   * The object to store, at once when no plugin answered with a promise (a write that admission
   * only looks at pays no microtask for it); else a promise of it. A refusal is thrown, or the
   * promise rejects with it once a plugin has answered later.
   */
  run(attrs: AdmissionAttributes, scope: AdmissionRequestScope, revalidate: (object: ApiObject) => ApiObject = (object) => object): Admitted {
    return this.#from(0, attrs, attrs, this.#pluginsFor(attrs.operation, attrs.type, attrs.subresource), scope, revalidate);
  }

  /**
   * The chain from `step` on: steps below `mutating.length` are the mutating plugins, that one is
   * the revalidation, the ones after it the validating plugins. A plugin's promise continues the
   * chain at the next step once it settles.
   */
  #from(step: number, attrs: AdmissionAttributes, current: AdmissionAttributes, kind: KindPlugins, scope: AdmissionRequestScope, revalidate: (object: ApiObject) => ApiObject): Admitted {
    const { mutating, validating } = kind;
    for (; step < mutating.length; step++) {
      const answer = mutating[step]!.admit!(current, scope);
      if (isPromise(answer)) {
        const next = step + 1;
        const seen = current;
        return answer.then((object) => this.#from(next, attrs, changed(seen, object), kind, scope, revalidate));
      }
      current = changed(current, answer);
    }
    if (step === mutating.length) {
      if (current.object !== undefined && current.object !== attrs.object) current = withObject(current, revalidate(current.object));
      step++;
    }
    for (; step <= mutating.length + validating.length; step++) {
      const answer = validating[step - mutating.length - 1]!.validate!(current, scope);
      if (isPromise(answer)) {
        const next = step + 1;
        const seen = current;
        return answer.then(() => this.#from(next, attrs, seen, kind, scope, revalidate));
      }
    }
    return current.object;
  }
}

/** What admission answers: the object to store, now or later. */
export type Admitted = ApiObject | undefined | Promise<ApiObject | undefined>;

/** The attributes after a mutating plugin's answer (undefined or the same object: unchanged). */
const changed = (current: AdmissionAttributes, next: ApiObject | undefined): AdmissionAttributes =>
  next !== undefined && next !== current.object ? withObject(current, next) : current;
