import { badRequest, type ResourceType } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import { userOf } from '../authz/index.js';
import { asTypedObject, decodeBody, dryRunOf, isPretty, representationOf, type Handler, type HandlerContext } from '../request/index.js';
import { renderOptions, renderValue, viewOptions, type JsonObject } from '../../encoding/index.js';
import type { ApiObject } from '../api-object.js';
import { withNewline } from '../json-newline.js';

/** What a virtual type's function is handed: the checked body, and who asks, where. */
export interface VirtualRequest<T> {
  /** The body, checked against the type's schema (its output: defaults applied). */
  readonly body: T;
  readonly user: UserInfo;
  /** The path's namespace (namespaced types). */
  readonly namespace: string | undefined;
}

/**
 * A virtual type: a POST is a question, `answer` returns the object to send back (the body with
 * its `status` filled in). Nothing is stored, watched or listed.
 */
export interface VirtualResource<T = ApiObject> {
  readonly type: ResourceType;
  answer(request: VirtualRequest<T>): ApiObject | Promise<ApiObject>;
}

/**
 * The create handler of a virtual type: decode the body (any request encoding the server reads),
 * check kind, apiVersion and namespace as a create does, check it against the schema (a body of
 * the wrong shape is a 400, as a decode error is in Kubernetes), ask, and answer 201 in the
 * API version the client used (`authorization.k8s.io/v1` to a client that posted there: typed
 * clients reject a kind in a group they do not know).
 */
export function virtualHandler<T>(resource: VirtualResource<T>): Handler {
  const { type } = resource;
  return async (ctx: HandlerContext) => {
    dryRunOf(ctx); // only to refuse a bad value: answering has no side effects
    const decoded = decodeBody(ctx);
    if (!decoded) throw badRequest(`the request has no body: a ${type.kind} is required`);
    const object = asTypedObject(ctx, decoded.value);
    const parsed = type.schema.safeParse(object);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '<root>'}: ${i.message}`).join(', ');
      throw badRequest(`${type.kind} in version ${JSON.stringify(type.version)} cannot be handled as a ${type.kind}: ${problems}`);
    }
    const answer = await resource.answer({ body: parsed.data as T, user: userOf(ctx.request), namespace: ctx.info.namespace });
    const apiVersion = clientApiVersion(ctx);
    const rep = representationOf(ctx, 'object', false);
    const value = { ...answer, apiVersion, kind: type.kind } as JsonObject;
    const options = renderOptions(rep, type, apiVersion, viewOptions(rep, type, true, 'Metadata'), isPretty(ctx));
    const bytes = renderValue(options, value);
    return ctx.reply.code(201).type(rep.contentType).send(Buffer.from(rep.codec === 'json' ? withNewline(bytes) : bytes));
  };
}

/** `<group>/<version>` as the request's path spelled it. */
function clientApiVersion(ctx: HandlerContext): string {
  const parts = ctx.request.url.split('?')[0]!.split('/');
  return parts[1] === 'api' ? ctx.type.version : `${decodeURIComponent(parts[2] ?? ctx.type.group)}/${ctx.type.version}`;
}
