import { describe, expect, it } from 'vitest';
import { builtinTypes, StatusError } from '../../src/api/index.js';
import {
  decodeProtobuf,
  encodeProtobuf,
  envelope,
  fromMessage,
  holdsShortString,
  messageOf,
  protoRoot,
  secondsTime,
  shortString,
  shortStringOfLatin1,
  shortStringSlot,
  shortStringsHeld,
  SHORT_STRING_BYTES,
  SHORT_STRING_SLOTS,
  type JsonObject,
} from '../../src/encoding/index.js';
import { kindKey, MAXIMAL_BY_HAND, maximalObject, MODEL_OF_KIND } from './support/maximal-fixtures.js';

const apiVersionOf = (t: { group: string; version: string }) => (t.group ? `${t.group}/${t.version}` : t.version);

/** A protobuf body decoded with protobufjs' own reader: every string a new one, no table. */
function decodedWithoutTable(body: Uint8Array): JsonObject {
  const unknown = protoRoot.lookupType('svc.runtime.Unknown').decode(Buffer.from(body.subarray(4))) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
  const { apiVersion, kind } = unknown.typeMeta;
  const type = messageOf(apiVersion, kind)!;
  return { kind, apiVersion, ...fromMessage(type, type.decode(Buffer.from(unknown.raw)) as unknown as JsonObject) };
}

/** Two different ASCII values of `length` that hash to one slot (the newer pushes the older out). */
function collidingPair(prefix: string, length: number): [string, string] {
  const bySlot = new Map<number, string>();
  for (let n = 0; ; n++) {
    const value = `${prefix}${n}`.padEnd(length, 'x');
    const slot = shortStringSlot(value);
    const other = bySlot.get(slot);
    if (other !== undefined && other.length === value.length) return [other, value];
    bySlot.set(slot, value);
  }
}

const [collideA, collideB] = collidingPair('collide-', 12);
/** Values of every shape a decoder meets: the table must not change one of them. */
const SHAPES: readonly string[] = [
  'v1',
  'True',
  'NoExecute',
  'node.kubernetes.io/not-ready',
  'a',
  ' ',
  'ü',
  'café',
  '日本語',
  'emoji 🙂 in it',
  '\u0000nul',
  '\u007f',
  'x'.repeat(SHORT_STRING_BYTES - 1),
  'y'.repeat(SHORT_STRING_BYTES),
  'z'.repeat(SHORT_STRING_BYTES + 1),
  'é'.repeat(SHORT_STRING_BYTES / 2),
  'long '.repeat(200),
  collideA,
  collideB,
  collideA,
];

function configMapOf(values: readonly string[]): JsonObject {
  // Each value as a key, a value, and both, so map keys and values go through the reader.
  const data: Record<string, string> = {};
  values.forEach((value, i) => {
    data[`k${i}`] = value;
    if (value !== '') data[value] = `v${i}`;
  });
  return { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'shapes', namespace: collideB, generateName: collideA, labels: { [collideA]: collideB, [collideB]: collideA } }, data };
}

describe('short strings shared by the protobuf decoder', () => {
  it.each(builtinTypes.map((t) => [kindKey(t), t] as const))('%s: decodes to what protobufjs alone decodes, twice over', (key, type) => {
    const object: JsonObject = { kind: type.kind, apiVersion: apiVersionOf(type), ...(MODEL_OF_KIND[key] ? maximalObject(MODEL_OF_KIND[key]!) : MAXIMAL_BY_HAND[key]!()) };
    const body = encodeProtobuf(object);
    const expected = decodedWithoutTable(body);
    // The first decode fills the table; the second is answered from it.
    expect(decodeProtobuf(body)).toEqual(expected);
    expect(decodeProtobuf(body)).toEqual(expected);
  });

  it('leaves every value as it is: unicode, empty, at and past the length bound, values that share a slot', () => {
    expect(shortStringSlot(collideA)).toBe(shortStringSlot(collideB));
    expect(collideA).not.toBe(collideB);
    const body = encodeProtobuf(configMapOf([...SHAPES, '']));
    const expected = decodedWithoutTable(body);
    expect((expected['data'] as JsonObject)['k0']).toBe('v1');
    for (let round = 0; round < 3; round++) expect(decodeProtobuf(body)).toEqual(expected);
    // The colliding values in turn, each pushing the other out of their slot.
    for (const value of [collideA, collideB, collideA, collideB]) {
      const decoded = decodeProtobuf(encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: value } }));
      expect((decoded['metadata'] as JsonObject)['name']).toBe(value);
      expect(holdsShortString(value)).toBe(true);
      expect(holdsShortString(value === collideA ? collideB : collideA)).toBe(false);
    }
  });

  it('holds the short ASCII values it decoded, and neither longer nor non-ASCII ones', () => {
    const long = 'q'.repeat(SHORT_STRING_BYTES + 1);
    const bound = 'r'.repeat(SHORT_STRING_BYTES);
    decodeProtobuf(encodeProtobuf(configMapOf(['NoExecute', 'node.kubernetes.io/unreachable', bound, long, 'ünïcode'])));
    expect(holdsShortString('NoExecute')).toBe(true);
    expect(holdsShortString('node.kubernetes.io/unreachable')).toBe(true);
    expect(holdsShortString(bound)).toBe(true);
    expect(holdsShortString(long)).toBe(false);
    expect(holdsShortString('ünïcode')).toBe(false);
  });

  it('stays within its slots under a stream of unique values, and decodes the values it pushed out', () => {
    decodeProtobuf(encodeProtobuf(configMapOf(['Exists'])));
    expect(holdsShortString('Exists')).toBe(true);
    const unique = (round: number) => Array.from({ length: 5_000 }, (_, i) => `unique-${round}-${i}-${'u'.repeat(i % 40)}`);
    for (let round = 0; round < 20; round++) {
      const values = unique(round);
      const decoded = decodeProtobuf(encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'stream' }, data: Object.fromEntries(values.map((v) => [v, v])) }));
      expect(Object.keys(decoded['data'] as JsonObject)).toEqual(values);
    }
    const held = shortStringsHeld();
    expect(held.slots).toBeLessThanOrEqual(SHORT_STRING_SLOTS);
    expect(held.chars).toBeLessThanOrEqual(SHORT_STRING_SLOTS * SHORT_STRING_BYTES);
    // 200,000 unique values went through: nearly every slot holds one of them now.
    expect(held.slots).toBeGreaterThan(SHORT_STRING_SLOTS / 2);
    const decoded = decodeProtobuf(encodeProtobuf(configMapOf(['Exists'])));
    expect((decoded['data'] as JsonObject)['k0']).toBe('Exists');
    expect(holdsShortString('Exists')).toBe(true);
  });

  it('reads bytes and latin1 text alike, into the one table', () => {
    for (const value of SHAPES) {
      const bytes = Buffer.concat([Buffer.from('<<'), Buffer.from(value, 'utf8'), Buffer.from('>>')]);
      const text = bytes.toString('latin1');
      expect(shortString(bytes, 2, bytes.length - 2)).toBe(value);
      expect(shortStringOfLatin1(text, 2, text.length - 2)).toBe(value);
    }
    expect(shortString(Buffer.from('abc'), 1, 1)).toBe('');
    const text = Buffer.from('..latin1-only..').toString('latin1');
    expect(shortStringOfLatin1(text, 2, 13)).toBe('latin1-only');
    expect(holdsShortString('latin1-only')).toBe(true);
  });

  it('refuses a string that runs past the end of its message: a 400, not a shorter string', () => {
    // ConfigMap{metadata: ObjectMeta{name: 5 bytes said, 2 there}}: the ObjectMeta is 4 bytes long.
    const raw = Uint8Array.of(0x0a, 0x04, 0x0a, 0x05, 0x61, 0x62);
    const error = (() => {
      try {
        decodeProtobuf(envelope('v1', 'ConfigMap', raw));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(400);
    expect((error as StatusError).message).toMatch(/index out of range/);
  });
});

describe('whole-second times shared by the protobuf decoder', () => {
  /** What every decode formatted before the table: a Date's ISO text to the second. */
  const formatted = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;

  it('gives the RFC 3339 text of the second, whichever second held its slot before', () => {
    const base = Date.UTC(2026, 10, 28, 6) / 1000;
    const seconds = [base, base + 1, base + 1024, base - 1024, base + 1, base, 0, 1, -1, -62135596799, 253402300799, 253402300800, 8.64e12, -8.64e12];
    for (let round = 0; round < 2; round++) {
      for (const s of seconds) expect(secondsTime(s), String(s)).toBe(formatted(s));
    }
    for (let s = base; s < base + 5000; s += 7) expect(secondsTime(s)).toBe(formatted(s));
  });

  it('throws as Date does past its range, and caches nothing for it', () => {
    expect(() => secondsTime(8.64e12 + 1)).toThrow(RangeError);
    expect(() => secondsTime(Number.NaN)).toThrow(RangeError);
    expect(() => secondsTime(8.64e12 + 1)).toThrow(RangeError);
  });

  it('a decoded object reads its times as before', () => {
    const time = '2026-11-28T06:00:00Z';
    const object = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', creationTimestamp: time }, status: { startTime: '2026-11-28T06:17:04Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: time }] } };
    for (let round = 0; round < 2; round++) expect(decodeProtobuf(encodeProtobuf(object))).toEqual(object);
  });
});
