import { AUTHORIZATION_GROUP, forbidden, internal, type SubjectAccessReview } from '../../api/index.js';
import { resource, type Client } from '../../client/index.js';
import type { AgentUser } from './authentication.js';
import { TtlCache } from './ttl-cache.js';

/** What a request to the agent is, as a SubjectAccessReview asks about it. */
export interface AgentRequestAttributes {
  readonly verb: string;
  readonly resource: 'nodes';
  readonly subresource: string;
  readonly name: string;
}

const VERBS: Readonly<Record<string, string>> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Path prefixes with a subresource of their own; every other path is `proxy`. */
const SUBRESOURCES: readonly (readonly [string, string])[] = [
  ['/stats', 'stats'],
  ['/metrics', 'metrics'],
  ['/logs', 'log'],
  ['/spec', 'spec'],
  ['/checkpoint', 'checkpoint'],
];

/**
 * The kubelet's mapping of a request to attributes: the verb from the method, resource `nodes`
 * named after this node, the subresource from the path's first segment. `/containerLogs`,
 * `/pods`, `/exec` and the rest are `proxy`: whoever may proxy to a node may read all of it.
 */
export function agentRequestAttributes(method: string, path: string, nodeName: string): AgentRequestAttributes {
  const verb = VERBS[method] ?? method.toLowerCase();
  const match = SUBRESOURCES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  return { verb, resource: 'nodes', subresource: match ? match[1] : 'proxy', name: nodeName };
}

export interface AgentAuthorizer {
  /** Resolves when allowed; rejects with a 403 StatusError when not. */
  authorize(user: AgentUser, attributes: AgentRequestAttributes): Promise<void>;
}

export const alwaysAllow: AgentAuthorizer = { authorize: async () => {} };

const subjectAccessReviews = resource<SubjectAccessReview>({ group: AUTHORIZATION_GROUP, version: 'v1', resource: 'subjectaccessreviews', namespaced: false, kind: 'SubjectAccessReview' });

/**
 * `--authorization-mode=Webhook`: asks the API server's SubjectAccessReview; an allowed answer is
 * cached for the authorized TTL, a denial for the unauthorized TTL. A failed review is a 500 and
 * is not cached.
 */
export class WebhookAuthorizer implements AgentAuthorizer {
  readonly #cache: TtlCache<{ allowed: boolean; reason: string }>;

  constructor(
    private readonly options: { client: Client; authorizedTtlMs: number; unauthorizedTtlMs: number; now: () => number },
  ) {
    this.#cache = new TtlCache(options.now);
  }

  async authorize(user: AgentUser, attributes: AgentRequestAttributes): Promise<void> {
    const key = JSON.stringify([user.name, user.uid ?? '', [...user.groups].sort(), user.extra ?? {}, attributes]);
    let answer = this.#cache.get(key);
    if (!answer) {
      answer = await this.#review(user, attributes);
      this.#cache.set(key, answer, answer.allowed ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs);
    }
    if (!answer.allowed) {
      const what = `user=${user.name}, verb=${attributes.verb}, resource=${attributes.resource}, subresource=${attributes.subresource}`;
      throw forbidden({ group: '', resource: 'nodes' }, attributes.name, `Forbidden (${what})${answer.reason ? `: ${answer.reason}` : ''}`);
    }
  }

  async #review(user: AgentUser, attributes: AgentRequestAttributes): Promise<{ allowed: boolean; reason: string }> {
    try {
      const review = await this.options.client.create(subjectAccessReviews, {
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: {
          user: user.name,
          groups: [...user.groups],
          ...(user.uid !== undefined ? { uid: user.uid } : {}),
          ...(user.extra ? { extra: user.extra as Record<string, string[]> } : {}),
          resourceAttributes: { ...attributes, group: '', version: 'v1' },
        },
      } as SubjectAccessReview);
      const status = review.status as { allowed?: boolean; denied?: boolean; reason?: string } | undefined;
      return { allowed: status?.allowed === true && status.denied !== true, reason: status?.reason ?? '' };
    } catch (error) {
      throw internal(new Error(`the SubjectAccessReview failed: ${(error as Error).message}`));
    }
  }
}
