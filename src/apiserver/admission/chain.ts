import type { ApiObject } from '../api-object.js';
import { withObject, type AdmissionAttributes } from './attributes.js';
import type { AdmissionPlugin, AdmissionRequestScope } from './plugin.js';

/**
 * The admission chain: every enabled plugin's `admit` in order, each seeing the previous one's
 * object; then, if anything changed the object, `revalidate` (the schema and metadata checks the
 * handler already ran on the client's object, so a mutation cannot store what a client could
 * not); then every `validate` in order on the final object. Returns the object to store.
 */
export class AdmissionChain {
  readonly #mutating: readonly AdmissionPlugin[];
  readonly #validating: readonly AdmissionPlugin[];

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    this.#mutating = plugins.filter((p) => p.admit);
    this.#validating = plugins.filter((p) => p.validate);
  }

  async run(
    attrs: AdmissionAttributes,
    scope: AdmissionRequestScope,
    revalidate: (object: ApiObject) => ApiObject = (object) => object,
  ): Promise<ApiObject | undefined> {
    let current = attrs;
    for (const plugin of this.#mutating) {
      const next = await plugin.admit!(current, scope);
      if (next !== undefined && next !== current.object) current = withObject(current, next);
    }
    if (current.object !== undefined && current.object !== attrs.object) current = withObject(current, revalidate(current.object));
    for (const plugin of this.#validating) await plugin.validate!(current, scope);
    return current.object;
  }
}
