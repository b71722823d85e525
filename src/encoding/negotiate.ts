import { notAcceptable } from '../api/index.js';
import { essenceOf, parseAccept, type MediaType } from './media-type.js';

/** The serializations svc speaks. */
export type Codec = 'json' | 'yaml' | 'protobuf' | 'cbor';

/** What is serialized: the object(s) themselves, or one of the meta views. */
export type View = 'Object' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** What a response carries: one object, a collection, or a stream of watch events. */
export type Target = 'object' | 'list' | 'watch';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.svc.protobuf';
/** The name Kubernetes clients (kubectl, client-go) use for the same envelope. */
export const KUBE_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const CBOR_MEDIA_TYPE = 'application/cbor';
export const CBOR_SEQ_MEDIA_TYPE = 'application/cbor-seq';

/** The group of the views in svc's naming, and the upstream name a Kubernetes client may use. */
export const META_GROUPS = ['meta.svc.io', 'meta.k8s.io'] as const;
const META_VERSIONS = ['v1', 'v1beta1'];

/** The outcome of negotiation: how to write the response. */
export interface Representation {
  readonly codec: Codec;
  readonly view: View;
  /** The group and version the view answers in (the ones the client asked for). */
  readonly viewGroup: string;
  readonly viewVersion: string;
  /** The response's Content-Type. */
  readonly contentType: string;
}

/** What the server can offer for one request. */
export interface Offer {
  readonly target: Target;
  /** The type has protobuf messages (built-in types only). */
  readonly protobuf: boolean;
  /** The CBORServingAndStorage gate is on. */
  readonly cbor: boolean;
  /** Table and metadata-only views are served (get, list and watch; not the write verbs). */
  readonly views: boolean;
}

/** The answer when nothing better was asked for: the object as JSON. */
export const PLAIN_JSON: Representation = Object.freeze({
  codec: 'json',
  view: 'Object',
  viewGroup: 'meta.svc.io',
  viewVersion: 'v1',
  contentType: JSON_MEDIA_TYPE,
});

/**
 * Picks the representation for an `Accept` header: the ranges by weight (then by specificity,
 * then in the order given), the first one the server can serve wins. Ranges of weight 0 are
 * never chosen. Nothing servable → 406 NotAcceptable listing what is offered.
 */
export function negotiate(accept: string | undefined, offer: Offer): Representation {
  if (accept === undefined || accept === JSON_MEDIA_TYPE || accept === '*/*') return PLAIN_JSON;
  // Clients send the same few Accept headers on every request (a node agent's protobuf one on
  // each Lease renewal): the answer for a header and an offer is kept, not parsed and sorted again.
  const key = `${offer.target}${offer.protobuf ? 'p' : '-'}${offer.cbor ? 'c' : '-'}${offer.views ? 'v' : '-'} ${accept}`;
  const known = negotiated.get(key);
  if (known) return known;
  const chosen = Object.freeze(negotiateAnew(accept, offer));
  // Bounded: a client sending ever new headers empties it rather than growing it.
  if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
  negotiated.set(key, chosen);
  return chosen;
}

/** Answers of `negotiate` by offer and header; a 406 is not kept. */
const negotiated = new Map<string, Representation>();
const NEGOTIATED_MAX = 256;

function negotiateAnew(accept: string, offer: Offer): Representation {
  const ranges = parseAccept(accept)
    .map((range, index) => ({ range, index }))
    .filter(({ range }) => range.q > 0)
    .sort((a, b) => b.range.q - a.range.q || specificity(b.range) - specificity(a.range) || a.index - b.index);
  for (const { range } of ranges) {
    const chosen = resolve(range, offer);
    if (chosen) return chosen;
  }
  throw notAcceptable(offered(offer));
}

const specificity = (range: MediaType) =>
  (range.type === '*' ? 0 : range.subtype === '*' ? 1 : 2) * 100 + Object.keys(range.params).length;

/** The media types an offer serves, for the 406 message. */
export function offered(offer: Offer): string[] {
  const types: string[] = [JSON_MEDIA_TYPE];
  if (offer.target !== 'watch') types.push(YAML_MEDIA_TYPE);
  if (offer.protobuf) types.push(PROTOBUF_MEDIA_TYPE, KUBE_PROTOBUF_MEDIA_TYPE);
  if (offer.cbor) types.push(offer.target === 'watch' ? CBOR_SEQ_MEDIA_TYPE : CBOR_MEDIA_TYPE);
  return types;
}

function codecOf(range: MediaType, offer: Offer): { codec: Codec; contentType: string } | undefined {
  const essence = essenceOf(range);
  const watch = offer.target === 'watch';
  switch (essence) {
    case '*/*':
    case 'application/*':
    case JSON_MEDIA_TYPE:
      return { codec: 'json', contentType: JSON_MEDIA_TYPE };
    case YAML_MEDIA_TYPE:
      // YAML has no framing for a stream of documents that clients agree on (Kubernetes has none either).
      return watch ? undefined : { codec: 'yaml', contentType: YAML_MEDIA_TYPE };
    case PROTOBUF_MEDIA_TYPE:
    case KUBE_PROTOBUF_MEDIA_TYPE:
      return offer.protobuf ? { codec: 'protobuf', contentType: watch ? `${essence};stream=watch` : essence } : undefined;
    case CBOR_MEDIA_TYPE:
      return offer.cbor ? { codec: 'cbor', contentType: watch ? CBOR_SEQ_MEDIA_TYPE : CBOR_MEDIA_TYPE } : undefined;
    case CBOR_SEQ_MEDIA_TYPE:
      return offer.cbor && watch ? { codec: 'cbor', contentType: CBOR_SEQ_MEDIA_TYPE } : undefined;
    default:
      return undefined;
  }
}

function resolve(range: MediaType, offer: Offer): Representation | undefined {
  const codec = codecOf(range, offer);
  if (!codec) return undefined;
  const as = range.params['as'];
  if (as === undefined || as === '') {
    return codec.codec === 'json' ? PLAIN_JSON : { ...PLAIN_JSON, ...codec };
  }
  if (!offer.views || range.type === '*' || range.subtype === '*') return undefined;
  const viewGroup = range.params['g'] ?? 'meta.svc.io';
  const viewVersion = range.params['v'] ?? 'v1';
  if (!(META_GROUPS as readonly string[]).includes(viewGroup) || !META_VERSIONS.includes(viewVersion)) return undefined;
  let view: View;
  switch (as) {
    case 'Table':
      view = 'Table';
      break;
    case 'PartialObjectMetadata':
      // The spec's rule: the metadata-only view of a collection is the List. Kubernetes answers
      // 406 here; svc serves the List (representations.md says why).
      view = offer.target === 'list' ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
      break;
    case 'PartialObjectMetadataList':
      if (offer.target !== 'list') return undefined;
      view = 'PartialObjectMetadataList';
      break;
    default:
      return undefined;
  }
  return { ...codec, view, viewGroup, viewVersion };
}
