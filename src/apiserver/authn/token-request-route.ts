import { CORE_GROUP, methodNotAllowed, serviceUnavailable } from '../../api/index.js';
import { decodeBody, dryRunOf } from '../request/index.js';
import type { HandlerContext } from '../request/index.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import { issueTokenRequest, type StoredObject } from './token-request.js';
import { jsonBody } from '../json-newline.js';

/**
 * POST `/api/v1/namespaces/<ns>/serviceaccounts/<name>/token`, reached from the resource router.
 * (It lives here until the subresource routing lands; it is one call there.)
 */
export async function serveTokenRequest(ctx: HandlerContext, tokens: ServiceAccountTokens | undefined): Promise<unknown> {
  const { info, registry, reader } = ctx;
  if (info.verb !== 'create') throw methodNotAllowed(info.verb, 'TokenRequest');
  if (!tokens) throw serviceUnavailable('service-account tokens are not configured on this server');
  const get = async (kind: 'ServiceAccount' | 'Pod' | 'Secret', namespace: string, name: string): Promise<StoredObject | undefined> => {
    const type = registry.byKind(CORE_GROUP, kind);
    return type ? ((await reader.get(type, namespace, name)) as StoredObject | undefined) : undefined;
  };
  const result = await issueTokenRequest(tokens, {
    namespace: info.namespace!,
    name: info.name!,
    body: decodeBody(ctx)?.value,
    get,
    dryRun: dryRunOf(ctx),
  });
  return ctx.reply.code(201).type('application/json').send(jsonBody(result));
}
