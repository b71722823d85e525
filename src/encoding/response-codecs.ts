import { stringify as toYaml } from 'yaml';
import type { JsonObject } from './json-value.js';
import type { Codec } from './negotiate.js';

/**
 * One serialization of decoded values. `encode` writes one value (an object, a list, a Table,
 * a Status); `frame` writes one watch event as the stream carries it.
 */
export interface ValueCodec {
  encode(value: JsonObject, pretty: boolean): Uint8Array;
  frame(type: string, object: JsonObject): Uint8Array;
}

const NEWLINE = '\n';

export const jsonCodec: ValueCodec = {
  encode: (value, pretty) => Buffer.from(pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value)),
  frame: (type, object) => Buffer.from(JSON.stringify({ type, object }) + NEWLINE),
};

export const yamlCodec: ValueCodec = {
  encode: (value) => Buffer.from(toYaml(value, { lineWidth: 0 })),
  frame: () => {
    throw new Error('YAML has no watch framing');
  },
};

const codecs: Partial<Record<Codec, ValueCodec>> = { json: jsonCodec, yaml: yamlCodec };

/** Installs the codec of an encoding whose module is loaded apart (protobuf, CBOR). */
export function registerCodec(name: Codec, codec: ValueCodec): void {
  codecs[name] = codec;
}

export function codecOf(name: Codec): ValueCodec {
  const codec = codecs[name];
  if (!codec) throw new Error(`no codec for ${name}`);
  return codec;
}
