import { forbidden, internal } from '../../api/index.js';
import type { Client } from '../../client/index.js';
import { AccessReviewer, type AccessAnswer } from '../../serving/index.js';
import type { AgentUser } from './authentication.js';

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

/**
 * `--authorization-mode=Webhook`: asks the API server's SubjectAccessReview; an allowed answer is
 * cached for the authorized TTL, a denial for the unauthorized TTL. A failed review is a 500 and
 * is not cached.
 */
export class WebhookAuthorizer implements AgentAuthorizer {
  readonly #reviews: AccessReviewer;

  constructor(options: { client: Client; authorizedTtlMs: number; unauthorizedTtlMs: number; now: () => number }) {
    this.#reviews = new AccessReviewer(options.client, options.authorizedTtlMs, options.unauthorizedTtlMs, options.now);
  }

  async authorize(user: AgentUser, attributes: AgentRequestAttributes): Promise<void> {
    let answer: AccessAnswer;
    try {
      answer = await this.#reviews.review(user, { resourceAttributes: { ...attributes, group: '', version: 'v1' } });
    } catch (error) {
      throw internal(new Error(`the SubjectAccessReview failed: ${(error as Error).message}`));
    }
    if (!answer.allowed) {
      const what = `user=${user.name}, verb=${attributes.verb}, resource=${attributes.resource}, subresource=${attributes.subresource}`;
      throw forbidden({ group: '', resource: 'nodes' }, attributes.name, `Forbidden (${what})${answer.reason ? `: ${answer.reason}` : ''}`);
    }
  }
}
