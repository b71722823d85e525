import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { PROTO_SOURCES, decodeProtobuf, encodeProtobuf, protobufCodec, type JsonObject } from '../../src/encoding/index.js';
import { ConversionError, fromMessage, toMessage } from '../../src/encoding/protobuf/convert.js';

/**
 * The value shapes the JSON ↔ protobuf converter handles, each through a real encode and decode:
 * svc's schemas plus one message that puts every shape side by side (svc's built-in kinds use
 * most of them; repeated bytes and lists of int-or-strings are here so the converter is ready).
 */
const SHAPES = `
syntax = "proto2";
package svc.shapes;
import "meta.proto";
import "runtime.proto";
import "util.proto";
message Shapes {
  repeated bytes blobs = 1;
  map<string, bytes> blobMap = 2;
  repeated int64 bigs = 3;
  optional svc.util.IntOrString port = 4;
  repeated svc.util.IntOrString ports = 5;
  map<string, svc.util.StringList> extra = 6;
  map<string, svc.meta.v1.Time> times = 7;
  optional int32 negative = 8;
  optional svc.runtime.RawExtension raw = 9;
  repeated svc.util.Quantity quantities = 10;
  map<string, Inner> inners = 11;
  optional svc.meta.v1.MicroTime micro = 12;
  optional Inner innerInline = 13;
  optional bool off = 14;
}
message Inner {
  optional string name = 1;
  repeated string values = 2;
}
`;

const root = (() => {
  const r = new protobuf.Root();
  for (const source of Object.values(PROTO_SOURCES)) protobuf.parse(source, r, { keepCase: true });
  protobuf.parse(SHAPES, r, { keepCase: true });
  r.resolveAll();
  return r;
})();
const shapes = root.lookupType('svc.shapes.Shapes');

const roundTrip = (json: JsonObject): JsonObject => {
  const bytes = shapes.encode(toMessage(shapes, json)).finish();
  return fromMessage(shapes, shapes.decode(bytes) as unknown as JsonObject);
};

describe('JSON ↔ protobuf value shapes', () => {
  it('carries repeated bytes and maps of bytes as base64', () => {
    const blobs = [Buffer.from([0, 1, 2, 255]).toString('base64'), Buffer.from('second').toString('base64')];
    const json = { blobs, blobMap: { k: Buffer.from('v').toString('base64') } };
    expect(roundTrip(json)).toEqual(json);
  });

  it('carries int64 lists, negative integers and a present false', () => {
    const json = { bigs: [1, 2 ** 40, -7], negative: -1, off: false };
    expect(roundTrip(json)).toEqual(json);
  });

  it('keeps an int-or-string as the number or the string it was, alone and in lists', () => {
    expect(roundTrip({ port: 8080 })).toEqual({ port: 8080 });
    expect(roundTrip({ port: 'http' })).toEqual({ port: 'http' });
    expect(roundTrip({ ports: [1, '25%', 0] })).toEqual({ ports: [1, '25%', 0] });
  });

  it('carries maps of messages: string lists (bare arrays in JSON), times and objects', () => {
    const json = {
      extra: { scopes: ['a', 'b'], groups: ['c'] },
      times: { 'pod-a': '2026-11-23T10:20:30Z' },
      inners: { x: { name: 'n', values: ['v'] } },
    };
    expect(roundTrip(json)).toEqual(json);
  });

  it('converts a whole-second time once: one message for its text, the time it was, and a bad one still refused', () => {
    const json = { times: { a: '2026-11-23T10:20:30Z', b: '2026-11-23T10:20:30Z', c: '2026-11-23T10:20:31Z' } };
    const first = toMessage(shapes, json)['times'] as JsonObject;
    const again = toMessage(shapes, json)['times'] as JsonObject;
    expect(first['b']).toBe(first['a']);
    expect(again['a']).toBe(first['a']);
    expect(first['c']).not.toBe(first['a']);
    expect(roundTrip(json)).toEqual(json);
    expect(() => toMessage(shapes, { times: { a: '2026-13-23T10:20:30Z' } })).toThrow('"2026-13-23T10:20:30Z" is not an RFC 3339 time');
    expect(() => toMessage(shapes, { times: { a: '2026-13-23T10:20:30Z' } })).toThrow('is not an RFC 3339 time');
  });

  it('carries free-form JSON, quantity lists, microseconds and inlined structs (flat in JSON)', () => {
    const json = {
      raw: { any: [1, 'two', { three: null }] },
      quantities: ['100m', '1Gi'],
      micro: '2026-11-23T10:20:30.123456Z',
      name: 'inlined',
      values: ['x'],
    };
    expect(roundTrip(json)).toEqual(json);
  });

  it('turns a JSON number quantity into its string form (the canonical JSON of a quantity)', () => {
    expect(roundTrip({ quantities: [2] })).toEqual({ quantities: ['2'] });
  });

  it.each([
    [{ extra: { k: 'not-a-list' } }, 'extra[k]: expected an array of strings'],
    [{ extra: { k: [1] } }, 'extra[k]: expected an array of strings'],
    [{ blobs: 'abc' }, 'blobs: expected an array'],
    [{ blobs: [7] }, 'blobs[0]: expected base64 data'],
    [{ port: true }, 'port: expected an integer or a string'],
    [{ times: { a: 'yesterday' } }, 'times[a]: "yesterday" is not an RFC 3339 time'],
    [{ inners: ['x'] }, 'inners: expected an object'],
    [{ negative: 1.5 }, 'negative: expected an integer'],
  ])('rejects %j: %s', (json, message) => {
    expect(() => toMessage(shapes, json as JsonObject)).toThrow(ConversionError);
    expect(() => toMessage(shapes, json as JsonObject)).toThrow(message);
  });
});

describe('the new shapes in built-in kinds', () => {
  it('carries a CertificateSigningRequest extra (map of string lists) through the envelope', () => {
    const csr = {
      kind: 'CertificateSigningRequest',
      apiVersion: 'certificates.svc.io/v1',
      metadata: { name: 'c' },
      spec: { request: Buffer.from('pem').toString('base64'), signerName: 's/x', extra: { scopes: ['read', 'write'] } },
    };
    expect(decodeProtobuf(encodeProtobuf(csr))).toEqual(csr);
  });

  it('refuses, with a 400, an object whose extra is not a list of strings', () => {
    const csr = { kind: 'CertificateSigningRequest', apiVersion: 'certificates.svc.io/v1', metadata: { name: 'c' }, spec: { extra: { scopes: 'read' } } };
    let caught: unknown;
    try {
      // The codec's encode is what the server's protobuf answers go through.
      protobufCodec.encode(csr, false);
    } catch (error) {
      caught = error;
    }
    expect(isStatusError(caught) && caught.toStatus()).toMatchObject({ code: 400, message: expect.stringContaining('spec.extra[scopes]: expected an array of strings') });
  });
});
