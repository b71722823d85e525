import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { builtinTypes } from '../../src/api/index.js';
import { codecsOnFirstUse, encodeProtobuf, LazyProtoRoot, messageOf, PROTO_SOURCES, type JsonObject } from '../../src/encoding/index.js';
import { MAXIMAL_BY_HAND, MODEL_OF_KIND, kindKey, maximalObject } from './support/maximal-fixtures.js';

const apiVersionOf = (t: { group: string; version: string }) => (t.group ? `${t.group}/${t.version}` : t.version);

/** docs/proto parsed whole, as protobufjs does it: what the lazy root must agree with. */
const eager = (() => {
  const root = new protobuf.Root();
  for (const source of Object.values(PROTO_SOURCES)) protobuf.parse(source, root, { keepCase: true });
  root.resolveAll();
  return root;
})();

describe('LazyProtoRoot', () => {
  it('parses a message and the messages its fields reach, nothing else', () => {
    const root = new LazyProtoRoot(Object.values(PROTO_SOURCES));
    const lease = root.lookupType('svc.groups.Lease');
    expect(lease.fieldsArray.map((f) => f.name)).toEqual(['metadata', 'spec']);
    expect(root.parsed.has('svc.meta.v1.ObjectMeta')).toBe(true);
    expect(root.parsed.has('svc.meta.v1.MicroTime')).toBe(true);
    expect(root.parsed.has('svc.core.v1.Pod')).toBe(false);
    expect(root.parsed.has('svc.apps.v1.Deployment')).toBe(false);
  });

  it('answers undefined for a name it has not, and lookupType throws naming it', () => {
    const root = new LazyProtoRoot(Object.values(PROTO_SOURCES));
    expect(root.type('svc.core.v1.NoSuchKind')).toBeUndefined();
    expect(() => root.lookupType('svc.core.v1.NoSuchKind')).toThrow(/svc\.core\.v1\.NoSuchKind/);
  });

  it('resolves a field type from the innermost package outwards, and skips braces in comments', () => {
    const root = new LazyProtoRoot([
      'syntax = "proto2";\npackage a.b;\n// a comment with a { brace\nmessage X {\n  // } not the end\n  optional c.Z z = 1; /* { */\n  optional Y y = 2;\n}\nmessage Y {\n  repeated int32 n = 1;\n}\n',
      'syntax = "proto2";\npackage a.c;\nmessage Z {\n  optional string s = 1;\n}\n',
      'syntax = "proto2";\npackage c;\nmessage Z {\n  optional bool wrong = 1;\n}\n',
    ]);
    const x = root.lookupType('a.b.X');
    expect(x.fields['z']!.resolvedType!.fullName).toBe('.a.c.Z');
    expect(x.fields['y']!.resolvedType!.fullName).toBe('.a.b.Y');
    expect(root.parsed.has('c.Z')).toBe(false);
  });

  // proto2 semantics (unpacked repeated scalars, optional presence) come from each file's syntax line.
  it.each(builtinTypes.map((t) => [kindKey(t), t] as const))('%s: encodes the bytes the whole parsed set encodes', (key, type) => {
    const object: JsonObject = { kind: type.kind, apiVersion: apiVersionOf(type), ...(MODEL_OF_KIND[key] ? maximalObject(MODEL_OF_KIND[key]!) : MAXIMAL_BY_HAND[key]!()) };
    const body = encodeProtobuf(object);
    const unknown = eager.lookupType('svc.runtime.Unknown').decode(body.subarray(4)) as unknown as { raw: Uint8Array; typeMeta: { kind: string } };
    const message = eager.lookupType(messageOf(apiVersionOf(type), type.kind)!.fullName);
    expect(Buffer.from(message.encode(message.decode(unknown.raw)).finish())).toEqual(Buffer.from(unknown.raw));
  });
});

describe('codecsOnFirstUse', () => {
  it('generates each function when first called, and they work as protobufjs generates them', () => {
    const root = protobuf.parse('syntax = "proto3";\npackage t;\nmessage M {\n  int64 n = 1;\n  repeated string s = 2;\n}\n').root;
    root.resolveAll();
    const type = root.lookupType('t.M');
    codecsOnFirstUse(type);
    const stubs = { encode: type.encode, decode: type.decode, verify: type.verify, fromObject: type.fromObject, toObject: type.toObject };
    const bytes = type.encode(type.fromObject({ n: '5', s: ['a', 'b'] })).finish();
    expect(type.encode).not.toBe(stubs.encode);
    expect(type.fromObject).not.toBe(stubs.fromObject);
    // Not called yet: still the stubs.
    expect(type.decode).toBe(stubs.decode);
    expect(type.verify).toBe(stubs.verify);
    expect(type.toObject(type.decode(bytes), { longs: String })).toEqual({ n: '5', s: ['a', 'b'] });
    expect(type.verify({ n: 'x' })).toMatch(/n: integer\|Long expected/);
    expect(type.verify).not.toBe(stubs.verify);
  });
});
