export { parseMediaType, parseAccept, essenceOf, contentTypeEssence, type MediaType } from './media-type.js';
export {
  negotiate,
  offered,
  PLAIN_JSON,
  JSON_MEDIA_TYPE,
  YAML_MEDIA_TYPE,
  PROTOBUF_MEDIA_TYPE,
  KUBE_PROTOBUF_MEDIA_TYPE,
  CBOR_MEDIA_TYPE,
  CBOR_SEQ_MEDIA_TYPE,
  META_GROUPS,
  type Codec,
  type View,
  type Target,
  type Offer,
  type Representation,
} from './negotiate.js';
export { codecOf, registerCodec, jsonCodec, yamlCodec, type ValueCodec } from './response-codecs.js';
export { humanDuration, ageOf } from './duration.js';
export { parseJsonPath, valueAtPath, type JsonPathSegment } from './json-path.js';
export { printerColumnsTable } from './printer-columns.js';
export { tableConvertorOf, DEFAULT_TABLE, KINDS_WITH_COLUMNS, type ColumnDefinition, type TableConvertor } from './columns.js';
export {
  parseIncludeObject,
  viewOptions,
  partialObjectMetadata,
  tableRow,
  objectInView,
  listInView,
  chunked,
  CHUNK_BYTES,
  type IncludeObject,
  type ListMetadata,
  type ViewOptions,
} from './views.js';
export { renderOptions, renderObject, renderValue, renderList, watchFrames, registerListStreamer, type RenderOptions, type ListStreamer } from './render.js';
export { acceptsGzip, compressLarge, compressBuffer, GZIP_THRESHOLD_BYTES, GZIP_LEVEL, type MaybeCompressed } from './gzip.js';
export { isObject, parseObject, type JsonObject } from './json-value.js';
export { MAX_OBJECT_BYTES, objectTooLarge, jsonSizeExceeds, jsonSizeUpTo, jsonTextLengthAtLeast, requireStorableSize } from './object-size.js';
export { MAX_NESTING_DEPTH, nestingTooDeep, jsonTextTooDeep, valueTooDeep, requireNestingWithin } from './nesting.js';
export { jsonStringEnd } from './json-string-end.js';
export { PROTOBUF_MAGIC, encodeProtobuf, decodeProtobuf, decodeProtobufWatchEvent, protobufCodec, protobufListChunks, hasProtobufMessage, encodeRaw, envelope, knownObjectOf, type ProtobufDecodeOptions } from './protobuf/envelope.js';
export { shareEmbeddedJson } from './protobuf/shared-json.js';
export { protoRoot, messageOf } from './protobuf/schema.js';
export { LazyProtoRoot } from './protobuf/lazy-root.js';
export { codecsOnFirstUse } from './protobuf/codecs-on-first-use.js';
export { fromMessage } from './protobuf/convert.js';
export { decodeMessage } from './protobuf/message-reader.js';
export { secondsTime } from './protobuf/time-strings.js';
export { shortString, shortStringOfLatin1, shortStringsHeld, shortStringSlot, holdsShortString, SHORT_STRING_BYTES, SHORT_STRING_SLOTS } from './protobuf/short-strings.js';
export { PROTO_SOURCES } from './protobuf/sources.js';

import { registerCodec } from './response-codecs.js';
import { registerListStreamer } from './render.js';
import { protobufCodec, protobufListChunks } from './protobuf/envelope.js';

registerCodec('protobuf', protobufCodec);
registerListStreamer('protobuf', (options, metadata, items) => protobufListChunks(options.apiVersion, options.listKind, metadata, items));
export { CBOR_SELF_DESCRIBED, encodeCbor, decodeCbor, cborCodec } from './cbor.js';
import { cborCodec } from './cbor.js';
registerCodec('cbor', cborCodec);
export { protoFieldTable } from './protobuf/fields.js';
export { selfSignedCertificate, type SelfSignedRequest, type PemPair } from './certificate.js';
