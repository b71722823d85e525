import { badRequest, inMessage, unsupportedMediaType, upstreamGroupAlias, type ResourceType } from '../../api/index.js';
import {
  CBOR_MEDIA_TYPE,
  KUBE_PROTOBUF_MEDIA_TYPE,
  PROTOBUF_MEDIA_TYPE,
  contentTypeEssence,
  decodeCbor,
  decodeProtobuf,
  jsonTextLengthAtLeast,
  MAX_OBJECT_BYTES,
  objectTooLarge,
  requireStorableSize,
} from '../../encoding/index.js';
import { apiVersionOf, type ApiObject } from '../api-object.js';
import { bodyText, decodeJson, decodeYaml, type DecodedBody } from './decode.js';
import type { HandlerContext } from './context.js';
import { isPretty } from './query.js';
import { representationOf } from './representation.js';

/** Request body media types decoded as JSON and as YAML (app.ts accepts these, and only these). */
export const JSON_BODY_TYPES = [
  'application/json',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;
export const YAML_BODY_TYPES = ['application/yaml', 'application/apply-patch+yaml'] as const;
/** Protobuf envelopes (svc's name and the one Kubernetes clients send): objects for create and update. */
export const PROTOBUF_BODY_TYPES = [PROTOBUF_MEDIA_TYPE, KUBE_PROTOBUF_MEDIA_TYPE] as const;
/** CBOR bodies, accepted only with the CBORServingAndStorage gate. */
export const CBOR_BODY_TYPES = [CBOR_MEDIA_TYPE, 'application/apply-patch+cbor'] as const;

/**
 * Bodies of every verb but PATCH are objects (or DeleteOptions) in a serialization: a patch media
 * type on a POST or PUT is a 415, as Kubernetes answers.
 */
const OBJECT_BODY_TYPES: readonly string[] = ['application/json', 'application/yaml', ...PROTOBUF_BODY_TYPES, CBOR_MEDIA_TYPE];
const PATCH_BODY_TYPES: readonly string[] = [...JSON_BODY_TYPES.filter((type) => type !== 'application/json'), 'application/apply-patch+yaml'];

/** The Content-Type's media type, lowercased, without parameters; a malformed one is a 415. */
function bodyMediaType(ctx: HandlerContext): string {
  const header = ctx.request.headers['content-type'];
  if (header === undefined) return 'application/json';
  const media = contentTypeEssence(String(header));
  if (media === undefined) throw unsupportedMediaType(String(header), ctx.request.method === 'PATCH' ? PATCH_BODY_TYPES : OBJECT_BODY_TYPES);
  return media;
}

/**
 * The request's media type as the verbs see it: an apply patch sent as CBOR is the apply patch
 * (its body is decoded as CBOR all the same).
 */
export function mediaTypeOf(ctx: HandlerContext): string {
  const media = bodyMediaType(ctx);
  return media === 'application/apply-patch+cbor' ? 'application/apply-patch+yaml' : media;
}

/**
 * The decoded body with its duplicate fields; undefined when the request has none. `object`: the
 * body is an object to store (create, update, apply), so JSON text whose content alone is larger
 * than an object may be is refused (413) before it is parsed.
 */
export function decodeBody(ctx: HandlerContext, options: { object?: boolean } = {}): DecodedBody | undefined {
  // A write whose answer the client cannot accept is refused (406) before anything is written;
  // so is one whose answer it asked for in a form that does not parse (pretty=x, 400).
  representationOf(ctx, 'object', false);
  isPretty(ctx);
  const raw = ctx.request.body;
  if (raw === undefined || raw === null || (raw instanceof Uint8Array && raw.length === 0)) return undefined;
  const media = bodyMediaType(ctx);
  if (ctx.request.method !== 'PATCH' && !OBJECT_BODY_TYPES.includes(media)) throw unsupportedMediaType(media, OBJECT_BODY_TYPES);
  // The write path copies what it changes and never changes a body in place: a managedFields
  // entry sent back as this server wrote it may be the server's own FieldsV1 (shared-json.ts).
  if ((PROTOBUF_BODY_TYPES as readonly string[]).includes(media)) return { value: decodeProtobuf(asBytes(raw), { sharedJson: true }), duplicates: [] };
  if ((CBOR_BODY_TYPES as readonly string[]).includes(media)) return { value: decodeCbor(asBytes(raw)), duplicates: [] };
  const text = bodyText(raw);
  if (options.object && text.length > MAX_OBJECT_BYTES && JSON_START.test(text) && jsonTextLengthAtLeast(text) > MAX_OBJECT_BYTES) {
    throw objectTooLarge(`more than ${MAX_OBJECT_BYTES} bytes`);
  }
  return (YAML_BODY_TYPES as readonly string[]).includes(media) ? decodeYaml(text) : decodeJson(text);
}

/** Text that starts like JSON: for YAML it may still be YAML (`{a: 1}`), whose JSON is not shorter. */
const JSON_START = /^[\s\uFEFF]*[{[]/;

const asBytes = (raw: unknown): Uint8Array => (raw instanceof Uint8Array ? raw : Buffer.from(String(raw)));

/** Parses a request body into an object (anything else is a 400); duplicate keys: last wins. */
export function parseJsonBody(ctx: HandlerContext): Record<string, unknown> | undefined {
  const decoded = decodeBody(ctx);
  if (!decoded) return undefined;
  return requireObject(decoded.value);
}

function requireObject(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

const sameApiVersion = (sent: string, type: ResourceType) => {
  const slash = sent.lastIndexOf('/');
  const group = slash < 0 ? '' : upstreamGroupAlias(sent.slice(0, slash));
  const version = slash < 0 ? sent : sent.slice(slash + 1);
  return group === type.group && version === type.version;
};

/** An object body with the duplicate fields its decoder saw. */
export interface BodyObject {
  readonly object: ApiObject;
  readonly duplicates: readonly string[];
}

/**
 * The object a create or update carries: kind and apiVersion must be the path's (they default to
 * it when absent), the namespace must be the path's, and the result is stamped canonically.
 */
export function objectFromBody(ctx: HandlerContext): BodyObject {
  const decoded = decodeBody(ctx, { object: true });
  if (!decoded) throw badRequest('the request has no body: an object is required');
  // Before validation and field sets, whose cost grows with every field: an object already larger
  // than the store takes is refused at once.
  requireStorableSize(decoded.value);
  return { object: asTypedObject(ctx, decoded.value), duplicates: decoded.duplicates };
}

/** Checks a decoded value (a body, a patch result) is an object of the request's type and namespace. */
export function asTypedObject(ctx: HandlerContext, value: unknown): ApiObject {
  const body = requireObject(value);
  const { type, info } = ctx;
  const expected = apiVersionOf(type);
  if (body['apiVersion'] !== undefined && (typeof body['apiVersion'] !== 'string' || !sameApiVersion(body['apiVersion'], type))) {
    throw badRequest(`the API version in the data (${inMessage(body['apiVersion'])}) does not match the expected API version (${expected})`);
  }
  if (body['kind'] !== undefined && body['kind'] !== type.kind) {
    throw badRequest(`the kind in the data (${inMessage(body['kind'])}) does not match the expected kind (${type.kind})`);
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

/**
 * `dryRun=All`: true when the request must not persist. Every value given (the parameter may be
 * repeated) must be `All`; anything else, an empty value included, is a 400, as upstream's
 * validation of the options' `dryRun` list.
 */
export function dryRunOf(ctx: HandlerContext): boolean {
  const value = (ctx.request.query as Record<string, unknown>)['dryRun'];
  if (value === undefined) return false;
  for (const one of Array.isArray(value) ? value : [value]) {
    if (one !== 'All') throw badRequest(`unsupported dryRun value ${JSON.stringify(String(one))}: the only accepted value is "All"`);
  }
  return true;
}

/** The object name on the URL must be the body's (an absent one defaults to it). */
export function nameFromUrl(object: ApiObject, name: string): ApiObject {
  const sent = object.metadata.name;
  if (sent === undefined || sent === '') return { ...object, metadata: { ...object.metadata, name } };
  if (sent !== name) throw badRequest(`the name of the object (${inMessage(sent)}) does not match the name on the URL (${name})`);
  return object;
}
