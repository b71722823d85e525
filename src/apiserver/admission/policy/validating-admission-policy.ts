import {
  ADMISSIONREGISTRATION_GROUP,
  AuthorizerValue,
  forbidden,
  StatusError,
  toCel,
  upstreamGroupName,
  type CelAuthorize,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  type ValidationAction,
} from '../../../api/index.js';
import type { ApiObject } from '../../api-object.js';
import type { AdmissionAttributes } from '../attributes.js';
import { namespaceOf } from '../namespace-lifecycle.js';
import type { AdmissionEnv, AdmissionKind, AdmissionPlugin, AdmissionRequestScope } from '../plugin.js';
import { compiledPolicy } from './compiled-policy.js';
import { evaluateBinding, type PolicyFailure } from './evaluate-binding.js';
import { bindingParams } from './params.js';
import { resourcesMatch } from './policy-matching.js';
import { requestValue } from './request-value.js';

/** The audit annotation Audit-action failures are recorded under (a JSON list), as upstream names it. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

const CODES = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 } as const;

/** Policies and bindings are not subject to policies: a policy refusing every write could otherwise never be removed. */
const exempt = ({ type }: AdmissionKind) =>
  type.group === ADMISSIONREGISTRATION_GROUP && (type.resource === 'validatingadmissionpolicies' || type.resource === 'validatingadmissionpolicybindings');

const byName = (a: ApiObject, b: ApiObject) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);

/**
 * A Deny: Kubernetes' admission Forbidden (`deployments.apps "x" is forbidden: ...`) with the
 * validation's reason and its code; another reason than Forbidden also carries the text as a
 * cause, which kubectl shows as `The deployments "x" is invalid: : ...`.
 */
function denial(attrs: AdmissionAttributes, failure: PolicyFailure, text: string): StatusError {
  const refused = forbidden({ group: attrs.type.group, resource: attrs.type.resource }, attrs.name, text);
  if (failure.reason === 'Forbidden') return refused;
  return new StatusError({ reason: failure.reason, code: CODES[failure.reason], message: refused.message, details: { ...refused.details, causes: [{ message: text }] } });
}

/**
 * ValidatingAdmissionPolicy: every policy whose matchConstraints select the request, under every
 * binding of it whose matchResources do, with each params object the binding names. A failed
 * validation does what the binding's validationActions say: Deny refuses the request (the first
 * such failure, in policy then binding name order, is the answer), Warn adds a `Warning` header,
 * Audit records it in the request's audit annotations. Policies and bindings come from the watch
 * caches; each policy version is compiled once (compiled-policy.ts).
 */
export function validatingAdmissionPolicies(env: AdmissionEnv): AdmissionPlugin {
  const policyType = env.registry.lookup(ADMISSIONREGISTRATION_GROUP, 'v1', 'validatingadmissionpolicies');
  const bindingType = env.registry.lookup(ADMISSIONREGISTRATION_GROUP, 'v1', 'validatingadmissionpolicybindings');
  return {
    name: 'ValidatingAdmissionPolicy',
    appliesTo: (kind) => policyType !== undefined && bindingType !== undefined && !exempt(kind),
    validate(attrs, scope) {
      if (policyType === undefined || bindingType === undefined || exempt(attrs)) return;
      const bindings = env.objects.list(bindingType) as readonly ValidatingAdmissionPolicyBinding[];
      if (bindings.length === 0) return;
      const policies = env.objects.list(policyType) as readonly ValidatingAdmissionPolicy[];
      // Without policies and bindings the answer is at once (no promise for the chain to wait on).
      return policies.length === 0 ? undefined : check(attrs, scope, bindings, policies);
    },
  };

  async function check(
    attrs: AdmissionAttributes,
    scope: AdmissionRequestScope,
    bindings: readonly ValidatingAdmissionPolicyBinding[],
    policies: readonly ValidatingAdmissionPolicy[],
  ): Promise<void> {

    let namespace: ApiObject | undefined | null = null;
    const namespaceObject = async () => {
      if (namespace === null) namespace = attrs.type.namespaced && attrs.namespace ? await namespaceOf(env, attrs.namespace) : undefined;
      return namespace;
    };
    let base: Record<string, unknown> | undefined;
    const baseContext = async () => {
      if (base === undefined) {
        const ns = await namespaceObject();
        // Each variable converted to CEL on first read: most policies read only `object`.
        base = lazyValues({
          object: () => (attrs.object === undefined ? null : toCel(attrs.object)),
          oldObject: () => (attrs.oldObject === undefined ? null : toCel(attrs.oldObject)),
          request: () => toCel(requestValue(attrs)),
          namespaceObject: () => (ns === undefined ? null : toCel(ns)),
          authorizer: () => authorizerFor(env, attrs),
        });
      }
      return base;
    };

    const denials: StatusError[] = [];
    const warnings: string[] = [];
    const audited: unknown[] = [];
    const annotations: Record<string, string> = {};

    for (const policy of [...policies].sort(byName)) {
      const own = bindings.filter((b) => b.spec.policyName === policy.metadata.name);
      if (own.length === 0) continue;
      if (!resourcesMatch(policy.spec.matchConstraints, attrs, await namespaceObject(), true)) continue;
      const compiled = compiledPolicy(policy);
      for (const binding of [...own].sort(byName)) {
        if (binding.spec.matchResources && !resourcesMatch(binding.spec.matchResources, attrs, await namespaceObject(), false)) continue;
        const failures: PolicyFailure[] = [];
        const lookup = bindingParams(env, policy, binding, attrs);
        if (lookup.kind === 'skip') continue;
        if (lookup.kind === 'failure') {
          if (policy.spec.failurePolicy !== 'Ignore') failures.push({ message: lookup.message, reason: 'Forbidden' });
        } else {
          const context = await baseContext();
          for (const params of lookup.params) {
            const outcome = evaluateBinding(compiled, context, params === null ? null : toCel(params));
            failures.push(...outcome.failures);
            for (const [key, value] of Object.entries(outcome.auditAnnotations)) annotations[`${policy.metadata.name}/${key}`] = value;
          }
        }
        act(policy.metadata.name!, binding.metadata.name!, binding.spec.validationActions, failures, attrs, { denials, warnings, audited });
      }
    }
    if (audited.length > 0) annotations[VALIDATION_FAILURE_ANNOTATION] = JSON.stringify(audited);
    if (Object.keys(annotations).length > 0) scope.annotate(annotations);
    scope.warn(warnings);
    if (denials.length > 0) throw denials[0];
  }
}

function act(
  policy: string,
  binding: string,
  actions: readonly ValidationAction[],
  failures: readonly PolicyFailure[],
  attrs: AdmissionAttributes,
  out: { denials: StatusError[]; warnings: string[]; audited: unknown[] },
): void {
  for (const failure of failures) {
    if (actions.includes('Deny')) out.denials.push(denial(attrs, failure, `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${failure.message}`));
    if (actions.includes('Warn')) out.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding}': ${failure.message}`);
    if (actions.includes('Audit')) {
      out.audited.push({
        message: failure.message,
        policy,
        binding,
        ...(failure.expressionIndex !== undefined ? { expressionIndex: failure.expressionIndex } : {}),
        validationActions: actions,
      });
    }
  }
}

/** An object whose properties are computed on first read and then kept (getters, copied as getters by evaluateBinding). */
function lazyValues(makers: Readonly<Record<string, () => unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(makers)) {
    let done = false;
    let value: unknown;
    Object.defineProperty(out, name, {
      enumerable: true,
      get() {
        if (!done) {
          value = make();
          done = true;
        }
        return value;
      },
    });
  }
  return out;
}

/** CEL's `authorizer` for a request: the server's authorizer chain, asked for the requesting user or a named service account. */
function authorizerFor(env: AdmissionEnv, attrs: AdmissionAttributes): AuthorizerValue {
  const { type } = attrs;
  const authorize: CelAuthorize = (subject, target, verb) => {
    if (env.authorize === undefined) return { decision: 'noOpinion', reason: '', error: 'no authorizer is configured' };
    const user =
      subject.kind === 'requester'
        ? (attrs.user ?? { name: '', uid: '', groups: [] })
        : { name: `system:serviceaccount:${subject.namespace}:${subject.name}`, uid: '', groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace}`, 'system:authenticated'] };
    return env.authorize(user, target, verb);
  };
  const request = { kind: 'resource' as const, group: upstreamGroupName(type.group), resource: type.resource, subresource: attrs.subresource, namespace: attrs.namespace, name: attrs.name };
  return new AuthorizerValue(authorize, { kind: 'requester' }, request);
}

