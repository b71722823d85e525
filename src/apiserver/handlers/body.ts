import { badRequest, upstreamGroupAlias, type ResourceType } from '../../api/index.js';
import { apiVersionOf, type ApiObject } from '../objects.js';
import type { HandlerContext } from './context.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON request body into an object (anything else is a 400). */
export function parseJsonBody(ctx: HandlerContext): Record<string, unknown> | undefined {
  const raw = ctx.request.body;
  if (raw === undefined || raw === null || (raw instanceof Uint8Array && raw.length === 0)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw instanceof Uint8Array ? decoder.decode(raw) : String(raw));
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('the request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

const sameApiVersion = (sent: string, type: ResourceType) => {
  const slash = sent.lastIndexOf('/');
  const group = slash < 0 ? '' : upstreamGroupAlias(sent.slice(0, slash));
  const version = slash < 0 ? sent : sent.slice(slash + 1);
  return group === type.group && version === type.version;
};

/**
 * The object a create or update carries: kind and apiVersion must be the path's (they default to
 * it when absent), the namespace must be the path's, and the result is stamped canonically.
 */
export function objectFromBody(ctx: HandlerContext): ApiObject {
  const body = parseJsonBody(ctx);
  if (!body) throw badRequest('the request has no body: an object is required');
  const { type, info } = ctx;
  const expected = apiVersionOf(type);
  if (body['apiVersion'] !== undefined && (typeof body['apiVersion'] !== 'string' || !sameApiVersion(body['apiVersion'], type))) {
    throw badRequest(`the API version in the data (${String(body['apiVersion'])}) does not match the expected API version (${expected})`);
  }
  if (body['kind'] !== undefined && body['kind'] !== type.kind) {
    throw badRequest(`the kind in the data (${String(body['kind'])}) does not match the expected kind (${type.kind})`);
  }
  const metadata = body['metadata'] ?? {};
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw badRequest('metadata must be an object');
  }
  const meta = { ...(metadata as Record<string, unknown>) };
  if (type.namespaced) {
    if (meta['namespace'] !== undefined && meta['namespace'] !== '' && meta['namespace'] !== info.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta['namespace'] = info.namespace;
  } else {
    delete meta['namespace'];
  }
  return { ...body, apiVersion: expected, kind: type.kind, metadata: meta as ApiObject['metadata'] };
}

/** `dryRun` accepts only `All` (or no value); true when the request must not persist. */
export function isDryRun(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value === '' || value === 'All') return true;
  throw badRequest(`unsupported dryRun value ${JSON.stringify(value)}: the only accepted value is "All"`);
}
