import { labelSelectorFromSpec, matchesLabels, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from '../../../api/index.js';
import type { ApiObject } from '../../api-object.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { AdmissionEnv } from '../plugin.js';

/** The params objects a binding gives its policy: `[null]` for a policy without paramKind. */
export type ParamsLookup =
  | { readonly kind: 'params'; readonly params: readonly (ApiObject | null)[] }
  /** None found and the binding says to allow: the policy does not apply. */
  | { readonly kind: 'skip' }
  /** A failure of the binding (misconfigured, or none found under `Deny`): subject to its validation actions. */
  | { readonly kind: 'failure'; readonly message: string };

const NONE: ParamsLookup = { kind: 'params', params: [null] };

/**
 * The params of a binding, from the watch caches: `paramRef.name` (in `paramRef.namespace`, or
 * the request's namespace when the param kind is namespaced and it names none) or every object
 * that `paramRef.selector` selects there. Custom resources are params too: their types are in the
 * registry once their CRD is established.
 */
export function bindingParams(env: AdmissionEnv, policy: ValidatingAdmissionPolicy, binding: ValidatingAdmissionPolicyBinding, attrs: AdmissionAttributes): ParamsLookup {
  const paramKind = policy.spec.paramKind;
  if (paramKind === undefined) return NONE;
  const ref = binding.spec.paramRef;
  if (ref === undefined) return { kind: 'failure', message: 'failed to configure binding: paramRef is required when the policy has a paramKind' };
  const slash = paramKind.apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : paramKind.apiVersion.slice(0, slash);
  const type = env.registry.byKind(group, paramKind.kind);
  if (type === undefined) return { kind: 'failure', message: `failed to configure policy: failed to find resource referenced by paramKind: '${paramKind.apiVersion}, Kind=${paramKind.kind}'` };
  let namespace = '';
  if (type.namespaced) {
    namespace = ref.namespace || attrs.namespace;
    if (namespace === '') return { kind: 'failure', message: 'failed to configure binding: cannot use a namespaced paramRef in a policy binding that matches cluster-scoped resources' };
  }
  let found: ApiObject[];
  if (ref.name) {
    const one = env.objects.get(type, type.namespaced ? namespace : undefined, ref.name);
    found = one ? [one] : [];
  } else {
    const selector = labelSelectorFromSpec(ref.selector ?? {});
    found = env.objects.list(type, type.namespaced ? namespace : undefined).filter((o) => matchesLabels(selector, o.metadata.labels ?? {}));
  }
  if (found.length > 0) return { kind: 'params', params: found };
  if (ref.parameterNotFoundAction === 'Allow') return { kind: 'skip' };
  return { kind: 'failure', message: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
}
