import { isStatusError, ADMISSIONREGISTRATION_GROUP, type MutatingWebhook, type ResourceType, type ValidatingWebhook } from '../../../api/index.js';
import { applyJsonPatch, jsonPatchOperations } from '../../writes/json-patch.js';
import type { ApiObject } from '../../api-object.js';
import { withObject, type AdmissionAttributes } from '../attributes.js';
import { namespaceOf } from '../namespace-lifecycle.js';
import type { AdmissionEnv, AdmissionKind, AdmissionPlugin, AdmissionRequestScope } from '../plugin.js';
import type { WebhookClient } from './call.js';
import { denied, dryRunUnsupported, failedCalling } from './denial.js';
import { WebhookUnreachable, webhookTarget } from './endpoint.js';
import { namespaceSelected, objectSelected, ruleMatches } from './matching.js';
import { admissionReview, BadWebhookResponse, parseVerdict, type AdmissionVerdict } from './review.js';

type Webhook = MutatingWebhook | ValidatingWebhook;


/**
 * Every webhook of a kind of configuration, configurations in name order, webhooks in their order;
 * none when the server's registry does not serve that kind (a server built with its own registry).
 */
function webhooksOf(env: AdmissionEnv, type: ResourceType | undefined): readonly Webhook[] {
  if (type === undefined) return [];
  const configs = env.objects.list(type);
  if (configs.length === 0) return [];
  // The cache hands out one list per version of the configurations: sorted and flattened once.
  let webhooks = ordered.get(configs);
  if (!webhooks) {
    webhooks = [...configs].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1)).flatMap((config) => (config['webhooks'] as Webhook[] | undefined) ?? []);
    ordered.set(configs, webhooks);
  }
  return webhooks;
}
const ordered = new WeakMap<readonly ApiObject[], readonly Webhook[]>();

/**
 * Webhook configurations do not go through webhooks: a webhook that refuses every write could
 * otherwise never be removed (Kubernetes exempts them the same way).
 */
const exempt = (kind: AdmissionKind) => kind.type.group === ADMISSIONREGISTRATION_GROUP;

async function selects(env: AdmissionEnv, webhook: Webhook, attrs: AdmissionAttributes): Promise<boolean> {
  if (!(webhook.rules ?? []).some((rule) => ruleMatches(rule, attrs))) return false;
  if (!objectSelected(webhook.objectSelector, attrs)) return false;
  const namespace = attrs.type.namespaced && attrs.namespace ? await namespaceOf(env, attrs.namespace) : undefined;
  return namespaceSelected(webhook.namespaceSelector, attrs, namespace);
}

/**
 * Calls one webhook: undefined when its failurePolicy is Ignore and it could not give a usable
 * answer; a denial or (under Fail) a failure is thrown. A dry run never reaches a webhook that may
 * have side effects: it fails first (400).
 */
async function call(env: AdmissionEnv, client: WebhookClient, webhook: Webhook, attrs: AdmissionAttributes, scope: AdmissionRequestScope): Promise<AdmissionVerdict | undefined> {
  if (attrs.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(webhook.name);
  const review = admissionReview(attrs);
  let verdict: AdmissionVerdict;
  try {
    const target = webhookTarget(env, webhook.clientConfig);
    const text = await client.post(target, webhook.clientConfig.caBundle, JSON.stringify(review), (webhook.timeoutSeconds ?? 10) * 1000);
    verdict = parseVerdict(text, review.request.uid);
  } catch (error) {
    if (!(error instanceof WebhookUnreachable) && !(error instanceof BadWebhookResponse)) throw error;
    if (webhook.failurePolicy === 'Ignore') return undefined;
    throw failedCalling(webhook.name, error instanceof WebhookUnreachable ? `failed to call webhook: ${error.message}` : `received invalid webhook response: ${error.message}`);
  }
  scope.warn(verdict.warnings);
  if (!verdict.allowed) throw denied(webhook.name, verdict.status);
  return verdict;
}

/** The object a mutating webhook's patch makes; a patch that fails or changes what the request addresses is an unusable answer. */
function patched(object: ApiObject, operations: unknown): ApiObject {
  let result: unknown;
  try {
    // The write path's RFC 6902: it works on a copy (the object may be frozen and shared) and
    // reads keys as data, so a webhook's `/__proto__/x` is a path that does not exist.
    result = applyJsonPatch(object, jsonPatchOperations(operations), { kind: { group: '', kind: String(object.kind) }, name: object.metadata.name ?? '' });
  } catch (error) {
    if (!isStatusError(error)) throw error;
    throw new BadWebhookResponse(`the patch does not apply: ${error.message.split('\n')[0]}`);
  }
  const next = result as ApiObject;
  if (result === null || typeof result !== 'object' || typeof next.metadata !== 'object' || next.metadata === null) {
    throw new BadWebhookResponse('the patched object has no metadata');
  }
  for (const field of ['apiVersion', 'kind'] as const) {
    if (next[field] !== object[field]) throw new BadWebhookResponse(`the patch changed ${field}`);
  }
  if (next.metadata.name !== object.metadata.name || next.metadata.namespace !== object.metadata.namespace) {
    throw new BadWebhookResponse('the patch changed the name or namespace of the object');
  }
  return next;
}

/**
 * MutatingAdmissionWebhook: the mutating webhooks that select the request, one after the other,
 * each seeing the object as the ones before it left it (their JSON patches applied). A webhook
 * with reinvocationPolicy IfNeeded is called once more when a later webhook changed the object.
 */
export function mutatingWebhooks(env: AdmissionEnv, client: WebhookClient): AdmissionPlugin {
  const type = env.registry.lookup(ADMISSIONREGISTRATION_GROUP, 'v1', 'mutatingwebhookconfigurations');
  return {
    name: 'MutatingAdmissionWebhook',
    appliesTo: (kind) => !exempt(kind),
    admit(attrs, scope) {
      if (exempt(attrs)) return attrs.object;
      const webhooks = webhooksOf(env, type) as readonly MutatingWebhook[];
      // Without webhooks the answer is at once (no promise for the chain to wait on).
      return webhooks.length === 0 ? attrs.object : mutate(attrs, scope, webhooks);
    },
  };

  async function mutate(attrs: AdmissionAttributes, scope: AdmissionRequestScope, webhooks: readonly MutatingWebhook[]): Promise<ApiObject | undefined> {
    let current = attrs;
    let changes = 0;
    const reinvoke: { webhook: MutatingWebhook; changesAfter: number }[] = [];
    const run = async (webhook: MutatingWebhook) => {
      if (!(await selects(env, webhook, current))) return false;
      const verdict = await call(env, client, webhook, current, scope);
      if (verdict?.patch !== undefined && current.object !== undefined) {
        let next: ApiObject;
        try {
          next = patched(current.object, verdict.patch);
        } catch (error) {
          if (webhook.failurePolicy === 'Ignore') return true;
          throw failedCalling(webhook.name, `received invalid webhook response: ${(error as Error).message}`);
        }
        if (JSON.stringify(next) !== JSON.stringify(current.object)) {
          current = withObject(current, next);
          changes++;
        }
      }
      return true;
    };
    for (const webhook of webhooks) {
      if ((await run(webhook)) && webhook.reinvocationPolicy === 'IfNeeded') reinvoke.push({ webhook, changesAfter: changes });
    }
    // Once more, in order, for each IfNeeded webhook whose view of the object a later one changed.
    for (const { webhook, changesAfter } of reinvoke) if (changes > changesAfter) await run(webhook);
    return current.object;
  }
}

/**
 * ValidatingAdmissionWebhook: the validating webhooks that select the request, called in
 * parallel on the final object; the first refusal in configuration order is the answer.
 */
export function validatingWebhooks(env: AdmissionEnv, client: WebhookClient): AdmissionPlugin {
  const type = env.registry.lookup(ADMISSIONREGISTRATION_GROUP, 'v1', 'validatingwebhookconfigurations');
  return {
    name: 'ValidatingAdmissionWebhook',
    appliesTo: (kind) => !exempt(kind),
    validate(attrs, scope) {
      if (exempt(attrs)) return;
      const webhooks = webhooksOf(env, type);
      return webhooks.length === 0 ? undefined : check(attrs, scope, webhooks);
    },
  };

  async function check(attrs: AdmissionAttributes, scope: AdmissionRequestScope, webhooks: readonly Webhook[]): Promise<void> {
    const chosen = [];
    for (const webhook of webhooks) if (await selects(env, webhook, attrs)) chosen.push(webhook);
    // Dry-run refusals come first: they must not depend on which call finishes first.
    for (const webhook of chosen) {
      if (attrs.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(webhook.name);
    }
    const results = await Promise.allSettled(chosen.map((webhook) => call(env, client, webhook, attrs, scope)));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
  }
}
