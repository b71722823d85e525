/**
 * The CRI messages' TypeScript shapes: generated from the proto into messages.ts (responses as
 * protobufjs decodes them), and `Input<…>` for requests.
 */
export type * from './messages.js';

/**
 * A request built from a message shape: every field may be left out, and 64-bit fields also take
 * a `number`.
 */
export type Input<T> = T extends bigint
  ? bigint | number
  : T extends Uint8Array
    ? Uint8Array
    : T extends readonly (infer E)[]
      ? readonly Input<E>[]
      : T extends object
        ? { readonly [K in keyof T]?: Input<T[K]> | undefined }
        : T;
