import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { builtinTypes, isStatusError } from '../../src/api/index.js';
import {
  PROTOBUF_MAGIC,
  PROTO_SOURCES,
  codecOf,
  decodeCbor,
  decodeProtobuf,
  encodeCbor,
  encodeProtobuf,
  messageOf,
  protoFieldTable,
  type JsonObject,
} from '../../src/encoding/index.js';

const apiVersionOf = (t: { group: string; version: string }) => (t.group ? `${t.group}/${t.version}` : t.version);

/** A JSON value for every field of a message (the value types as their JSON forms). */
function sample(type: protobuf.Type, depth = 0): JsonObject {
  const out: JsonObject = {};
  for (const field of type.fieldsArray) {
    field.resolve();
    const value = sampleValue(field, depth);
    if (value === undefined) continue;
    if (field.name.endsWith('Inline')) Object.assign(out, value as JsonObject);
    else out[field.name] = field.map ? { k1: value } : field.repeated ? [value] : value;
  }
  return out;
}

function sampleValue(field: protobuf.Field, depth: number): unknown {
  const message = field.resolvedType;
  if (message instanceof protobuf.Type) {
    switch (message.fullName) {
      case '.svc.meta.v1.Time':
        return '2026-11-23T10:20:30Z';
      case '.svc.meta.v1.MicroTime':
        return '2026-11-23T10:20:30.123456Z';
      case '.svc.meta.v1.Duration':
        return '1m30s';
      case '.svc.util.Quantity':
        return '250m';
      case '.svc.util.IntOrString':
        return field.name === 'maxSurge' ? '25%' : 8080;
      case '.svc.runtime.RawExtension':
        return { any: ['json', 1] };
      case '.svc.meta.v1.FieldsV1':
        return { 'f:metadata': {} };
      case '.svc.util.StringList':
        return ['one', 'two'];
    }
    return depth > 6 ? undefined : sample(message, depth + 1);
  }
  switch (field.type) {
    case 'string':
      return `${field.name}-value`;
    case 'bool':
      return true;
    case 'bytes':
      return Buffer.from(`bytes of ${field.name}`).toString('base64');
    default:
      return field.id + 1;
  }
}

const kinds = builtinTypes.map((t) => ({ type: t, apiVersion: apiVersionOf(t) }));

describe('protobuf schemas', () => {
  it('has a message for every built-in kind and its list', () => {
    for (const { type, apiVersion } of kinds) {
      expect(messageOf(apiVersion, type.kind), type.kind).toBeDefined();
      if (!type.virtual) expect(messageOf(apiVersion, type.listKind), type.listKind).toBeDefined(); // virtual types have no lists
    }
  });

  it('never changes a pinned field number (new fields must be pinned too)', () => {
    const pinned = readFileSync(join(import.meta.dirname, 'proto-fields.pinned.txt'), 'utf8').trim().split('\n');
    const current = protoFieldTable();
    expect(current.filter((line) => !pinned.includes(line)), 'fields not pinned').toEqual([]);
    expect(pinned.filter((line) => !current.includes(line)), 'pinned fields changed or removed').toEqual([]);
  });

  it('publishes in docs/proto exactly the schemas the codec uses', () => {
    const dir = join(import.meta.dirname, '../../docs/proto');
    const files = readdirSync(dir).filter((f) => f.endsWith('.proto')).sort();
    expect(files).toEqual(Object.keys(PROTO_SOURCES).sort());
    for (const file of files) expect(readFileSync(join(dir, file), 'utf8'), file).toBe(PROTO_SOURCES[file]);
  });

  it.each(kinds.map((k) => [k.type.kind, k] as const))('round-trips every field of %s', (_kind, { type, apiVersion }) => {
    const object = { kind: type.kind, apiVersion, ...sample(messageOf(apiVersion, type.kind)!) };
    const bytes = encodeProtobuf(object);
    expect([...bytes.subarray(0, 4)]).toEqual([...PROTOBUF_MAGIC]);
    expect(decodeProtobuf(bytes)).toEqual(object);
  });

  it('keeps zero values that are present and drops Go zero strings and times', () => {
    const deployment = { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'd' }, spec: { replicas: 0, paused: false } };
    expect(decodeProtobuf(encodeProtobuf(deployment))).toEqual(deployment);
    const withEmpty = encodeProtobuf({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n', namespace: '' }, status: { phase: '' } });
    expect(decodeProtobuf(withEmpty)).toEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n' }, status: {} });
  });
});

describe('protobuf bodies that are not valid', () => {
  const status = (body: Uint8Array) => {
    try {
      decodeProtobuf(body);
    } catch (error) {
      if (isStatusError(error)) return error.toStatus();
      throw error;
    }
    throw new Error('decoded');
  };
  it('rejects a wrong magic prefix, a JSON body, garbage and an unknown kind with 400', () => {
    const good = encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' } });
    const wrong = Uint8Array.from(good);
    wrong[3] = 1;
    expect(status(wrong)).toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringContaining('magic') });
    expect(status(Buffer.from('{"kind":"ConfigMap"}'))).toMatchObject({ code: 400 });
    expect(status(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x0a, 0xff, 0xff])]))).toMatchObject({ code: 400 });
    const other = Buffer.from(good);
    expect(status(Buffer.concat([PROTOBUF_MAGIC, Buffer.from([0x0a, 0x06, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x00])]))).toMatchObject({ code: 400, message: expect.stringContaining('no protobuf message') });
    expect(other.length).toBeGreaterThan(4);
  });
});

describe('JSON, YAML and CBOR round trips', () => {
  it.each(kinds.map((k) => [k.type.kind, k] as const))('round-trips %s', (_kind, { type, apiVersion }) => {
    const object = { kind: type.kind, apiVersion, ...sample(messageOf(apiVersion, type.kind)!) };
    expect(JSON.parse(Buffer.from(codecOf('json').encode(object, false)).toString())).toEqual(object);
    expect(JSON.parse(Buffer.from(codecOf('json').encode(object, true)).toString())).toEqual(object);
    expect(parseYaml(Buffer.from(codecOf('yaml').encode(object, false)).toString())).toEqual(object);
    expect(decodeCbor(encodeCbor(object))).toEqual(object);
  });

  it('writes CBOR deterministically: the self-described tag, sorted keys, definite lengths', () => {
    const bytes = encodeCbor({ bb: 1, a: 2, c: [true] });
    expect(Buffer.from(bytes).toString('hex')).toBe('d9d9f7' + 'a3' + '6161' + '02' + '6163' + '81f5' + '626262' + '01');
    expect(Buffer.from(encodeCbor({ a: 2, c: [true], bb: 1 })).equals(Buffer.from(bytes))).toBe(true);
  });

  it('reads CBOR byte strings as text and rejects malformed items with 400', () => {
    expect(decodeCbor(Buffer.from('a1416b4176', 'hex'))).toEqual({ k: 'v' });
    for (const hex of ['ff', 'a1', '0102', 'fb7ff8000000000000', 'c11a00000000']) {
      let caught: unknown;
      try {
        decodeCbor(Buffer.from(hex, 'hex'));
      } catch (error) {
        caught = error;
      }
      expect(isStatusError(caught) && caught.toStatus().code, hex).toBe(400);
    }
  });
});
