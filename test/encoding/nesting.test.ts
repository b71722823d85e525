import { describe, expect, it } from 'vitest';
import { decodeCbor, decodeProtobuf, encodeCbor, encodeProtobuf, jsonTextTooDeep, MAX_NESTING_DEPTH, valueTooDeep } from '../../src/encoding/index.js';
import { cborTooDeep } from '../../src/encoding/cbor.js';
import { protobufTooDeep } from '../../src/encoding/protobuf/wire-depth.js';
import { nested, nestedJson } from '../support/nesting.js';

const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
};

/** A length-delimited field (number 1 unless given) around `inner`. */
const field = (inner: Uint8Array, number = 1) => Uint8Array.from([(number << 3) | 2, ...varint(inner.length), ...inner]);

/** `depth` fields 1, each holding the next, around a varint field: built outside in, in linear time. */
function deepMessage(depth: number): Uint8Array {
  const headers: number[][] = [];
  let length = 2;
  for (let i = 0; i < depth; i++) {
    const header = [0x0a, ...varint(length)];
    headers.push(header);
    length += header.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (let i = headers.length - 1; i >= 0; i--) for (const byte of headers[i]!) out[at++] = byte;
  out.set([0x08, 0x01], at);
  return out;
}

describe('JSON text depth', () => {
  it('counts objects and arrays, at the limit and one past it', () => {
    expect(jsonTextTooDeep(nestedJson(3), 3)).toBe(false);
    expect(jsonTextTooDeep(nestedJson(4), 3)).toBe(true);
    expect(jsonTextTooDeep('[[[]]]', 3)).toBe(false);
    expect(jsonTextTooDeep('[[[[]]]]', 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonTextTooDeep(JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[\\" [[[[' }), 2)).toBe(false);
  });

  it('measures siblings apart: many shallow objects are not deep', () => {
    expect(jsonTextTooDeep(JSON.stringify(Array.from({ length: 10_000 }, () => ({ a: [1] }))), 3)).toBe(false);
  });

  it('answers for 100 000 levels without recursing', () => {
    expect(jsonTextTooDeep(nestedJson(100_000))).toBe(true);
  });
});

describe('decoded value depth', () => {
  it('is checked with an explicit stack, at the limit and past it', () => {
    expect(valueTooDeep(nested(MAX_NESTING_DEPTH))).toBe(false);
    expect(valueTooDeep(nested(MAX_NESTING_DEPTH + 1))).toBe(true);
    expect(valueTooDeep(JSON.parse(nestedJson(200_000)))).toBe(true);
  });

  it('finds a value that contains itself (a YAML alias cycle) too deep', () => {
    const cyclic: Record<string, unknown> = { name: 'cyc' };
    cyclic['labels'] = cyclic;
    expect(valueTooDeep(cyclic)).toBe(true);
  });
});

describe('CBOR byte depth', () => {
  const arrays = (depth: number) => Uint8Array.from([...new Array<number>(depth).fill(0x81), 0x01]);

  it('counts arrays, maps and tags', () => {
    expect(cborTooDeep(arrays(3), 0, 3)).toBe(false);
    expect(cborTooDeep(arrays(4), 0, 3)).toBe(true);
    const item = encodeCbor(nested(5)); // self-described tag, then 5 maps
    expect(cborTooDeep(item, 3, 5)).toBe(false);
    expect(cborTooDeep(item, 0, 5)).toBe(true); // the tag is a level
  });

  it('closes indefinite-length containers at their break', () => {
    // [_ [_ ], [_ ]] : two siblings inside one indefinite array
    expect(cborTooDeep(Uint8Array.from([0x9f, 0x9f, 0xff, 0x9f, 0xff, 0xff]), 0, 2)).toBe(false);
    expect(cborTooDeep(Uint8Array.from([0x9f, 0x9f, 0x9f, 0xff, 0xff, 0xff]), 0, 2)).toBe(true);
  });

  it('skips string contents, so bytes that look like arrays inside them do not count', () => {
    const text = Uint8Array.from([0x58, 10, ...new Array<number>(10).fill(0x81)]);
    expect(cborTooDeep(text, 0, 1)).toBe(false);
  });

  it('makes decodeCbor answer 400 for 100 000 levels (cbor-x would overflow the stack)', () => {
    expect(() => decodeCbor(arrays(100_000))).toThrow(/nested too deeply/);
  });
});

describe('protobuf byte depth', () => {
  const deep = deepMessage;

  it('counts length-delimited fields that read as messages', () => {
    expect(protobufTooDeep(deep(10), 10)).toBe(false);
    expect(protobufTooDeep(deep(11), 10)).toBe(true);
  });

  it('goes on after a field that turns out to be bytes, without counting it', () => {
    // Field 1 holds a string that is not a message (0xff 0xff... is no valid key), then a sibling.
    const notMessage = field(Uint8Array.from([0x07, 0xff, 0xff]));
    expect(protobufTooDeep(Uint8Array.from([...notMessage, ...deep(2)]), 3)).toBe(false);
  });

  it('counts groups too (protobufjs skips an unknown group by recursing)', () => {
    const groups = (depth: number) => Uint8Array.from([...new Array<number>(depth).fill(0x0b), ...new Array<number>(depth).fill(0x0c)]);
    expect(protobufTooDeep(groups(10), 10)).toBe(false);
    expect(protobufTooDeep(groups(11), 10)).toBe(true);
    expect(protobufTooDeep(field(groups(11)), 10)).toBe(true);
  });

  it('reads a real envelope as shallow', () => {
    const bytes = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } }, data: { k: 'v' } });
    expect(protobufTooDeep(bytes.subarray(4), 20)).toBe(false);
  });

  it('makes decodeProtobuf answer 400 for 100 000 levels (protobufjs would overflow the stack)', () => {
    const typeMeta = Uint8Array.from([0x0a, 0x02, ...Buffer.from('v1'), 0x12, 0x09, ...Buffer.from('ConfigMap')]);
    const raw = deep(100_000);
    const body = Buffer.concat([Uint8Array.of(0x6b, 0x38, 0x73, 0x00), field(typeMeta, 1), field(raw, 2)]);
    expect(() => decodeProtobuf(body)).toThrow(/nested too deeply/);
    // Unknown groups, 100 000 deep, in the ConfigMap's message.
    const groups = Buffer.concat([Buffer.alloc(100_000, 0x5b), Buffer.alloc(100_000, 0x5c)]); // field 11, start and end group
    const grouped = Buffer.concat([Uint8Array.of(0x6b, 0x38, 0x73, 0x00), field(typeMeta, 1), field(groups, 2)]);
    expect(() => decodeProtobuf(grouped)).toThrow(/nested too deeply/);
  });
});
