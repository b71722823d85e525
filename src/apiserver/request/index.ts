// The request kernel: what a verb handler is handed (context, settings) and the helpers every
// handler reads the request and writes the answer with.
export type { Handler, HandlerContext } from './context.js';
export { DEFAULT_WATCH_SETTINGS, SOCKET_BUDGET_BYTES, type WatchSettings } from './settings.js';
export { isPretty, queryParam } from './query.js';
export { isBuiltin, renderOptionsOf, representationOf } from './representation.js';
export { sendObject, sendReadBytes, sendReadChunks } from './send.js';
export { listBody, listChunks, sendList, sendObjectList, type ListMeta } from './send-list.js';
export { objectMatcher, selectionOf, servedFilter, type Selection } from './selection.js';
export { yieldIfLarge, LARGE_BODY_BYTES } from './yield-large.js';
export {
  CBOR_BODY_TYPES,
  JSON_BODY_TYPES,
  PROTOBUF_BODY_TYPES,
  YAML_BODY_TYPES,
  asTypedObject,
  decodeBody,
  dryRunOf,
  mediaTypeOf,
  nameFromUrl,
  objectFromBody,
  parseJsonBody,
  type BodyObject,
} from './body.js';
