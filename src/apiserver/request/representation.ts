import { builtinTypes, type ResourceType } from '../../api/index.js';
import {
  hasProtobufMessage,
  negotiate,
  parseIncludeObject,
  renderOptions,
  viewOptions,
  type RenderOptions,
  type Representation,
  type Target,
} from '../../encoding/index.js';
import { apiVersionOf } from '../api-object.js';
import type { HandlerContext } from './context.js';
import { isPretty, queryParam } from './query.js';

const BUILTIN = new Set(builtinTypes.map((type) => `${type.group}/${type.version}/${type.resource}/${type.kind}`));

/** True for the types svc defines itself (they have per-kind table columns and protobuf messages). */
export function isBuiltin(type: ResourceType): boolean {
  return BUILTIN.has(`${type.group}/${type.version}/${type.resource}/${type.kind}`);
}

// Per type object, so a read does not build the lookup strings on every request. A type's
// fields never change (a changed CRD is a new ResourceType), so the answer is fixed per object.
const PROTOBUF_SERVED = new WeakMap<ResourceType, boolean>();

/** Whether `type` has a protobuf message to be served in. */
function servesProtobuf(type: ResourceType): boolean {
  let served = PROTOBUF_SERVED.get(type);
  if (served === undefined) {
    served = isBuiltin(type) && hasProtobufMessage(apiVersionOf(type), type.kind);
    PROTOBUF_SERVED.set(type, served);
  }
  return served;
}

/**
 * The representation the request's `Accept` asks for (406 when none can be served). `views`:
 * whether Table and metadata-only views are served (reads only).
 */
export function representationOf(ctx: HandlerContext, target: Target, views: boolean): Representation {
  return negotiate(ctx.request.headers.accept, {
    target,
    protobuf: servesProtobuf(ctx.type),
    cbor: ctx.featureGates['CBORServingAndStorage'] === true,
    views,
  });
}

/** Everything the encoders need to write this request's answer in `rep`. */
export function renderOptionsOf(ctx: HandlerContext, rep: Representation): RenderOptions {
  const pretty = isPretty(ctx);
  // A Table's options carry the request's includeObject and its time (Age cells); the others are
  // the same for every request of a type in a representation: made once, not per answer (each
  // was a lookup string, a time and two objects on every protobuf write answer).
  if (rep.view === 'Table' || pretty) return renderOptionsAnew(ctx, rep, pretty);
  let byType = FIXED_RENDER_OPTIONS.get(rep);
  if (!byType) FIXED_RENDER_OPTIONS.set(rep, (byType = new WeakMap()));
  let options = byType.get(ctx.type);
  if (!options) byType.set(ctx.type, (options = renderOptionsAnew(ctx, rep, false)));
  return options;
}

// Weak both ways: negotiate's representations and a changed CRD's old type go when unused.
const FIXED_RENDER_OPTIONS = new WeakMap<Representation, WeakMap<ResourceType, RenderOptions>>();

function renderOptionsAnew(ctx: HandlerContext, rep: Representation, pretty: boolean): RenderOptions {
  const includeObject = rep.view === 'Table' ? parseIncludeObject(queryParam(ctx, 'includeObject')) : 'Metadata';
  return renderOptions(rep, ctx.type, apiVersionOf(ctx.type), viewOptions(rep, ctx.type, isBuiltin(ctx.type), includeObject), pretty);
}
