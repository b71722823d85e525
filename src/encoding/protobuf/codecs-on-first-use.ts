import protobuf from 'protobufjs';

type CodecName = 'encode' | 'decode' | 'verify' | 'fromObject' | 'toObject';

/**
 * Makes each of a message's five generated functions (encode, decode, verify, fromObject,
 * toObject) be generated when first called, instead of all five on the first call of any.
 *
 * protobufjs writes them as source text and compiles it with `Function`, and V8 keeps that text
 * for the life of the function: ~1 KB a function for a message like PodSpec. svc calls encode and
 * decode for the kinds it serves, fromObject and toObject only for a few envelope and CRI
 * messages, verify never. The functions are the ones protobufjs generates (its public `encoder`,
 * `decoder`, `verifier` and `converter`), given the same arguments its `Type#setup` gives them.
 * Not for the `google.protobuf` wrapper types, which svc does not use.
 */
export function codecsOnFirstUse(type: protobuf.Type): void {
  const types = () => type.fieldsArray.map((field) => field.resolve().resolvedType);
  const { util, Writer, Reader } = protobuf;
  onFirstCall(type, 'encode', () => protobuf.encoder(type)({ Writer, types: types(), util }));
  onFirstCall(type, 'decode', () => protobuf.decoder(type)({ Reader, types: types(), util }));
  onFirstCall(type, 'verify', () => protobuf.verifier(type)({ types: types(), util }));
  onFirstCall(type, 'fromObject', () => protobuf.converter.fromObject(type)({ types: types(), util }));
  onFirstCall(type, 'toObject', () => protobuf.converter.toObject(type)({ types: types(), util }));
}

function onFirstCall(type: protobuf.Type, name: CodecName, generate: () => unknown): void {
  const slot = type as unknown as Record<CodecName, (...args: unknown[]) => unknown>;
  slot[name] = (...args: unknown[]) => {
    const generated = generate() as (...args: unknown[]) => unknown;
    slot[name] = generated;
    return generated.apply(type, args);
  };
}
