// The protobuf envelope (src/encoding/protobuf/envelope.ts `envelope`): written by hand in one
// buffer, it is byte for byte protobufjs' encoding of magic + Unknown{typeMeta, raw}, for messages
// whose lengths take one, two and three varint bytes, and it decodes back to the object.
import { describe, expect, it } from 'vitest';
import { decodeProtobuf, encodeProtobuf } from '../../src/encoding/index.js';
import { envelope, PROTOBUF_MAGIC } from '../../src/encoding/protobuf/envelope.js';
import { unknownType } from '../../src/encoding/protobuf/schema.js';

/** What protobufjs writes for the same envelope. */
const byProtobufjs = (apiVersion: string, kind: string, raw: Uint8Array) =>
  Buffer.concat([PROTOBUF_MAGIC, unknownType.encode({ typeMeta: { apiVersion, kind }, raw }).finish()]);

describe('the protobuf envelope', () => {
  it.each([0, 1, 127, 128, 300, 16_383, 16_384, 70_000])('is protobufjs\' encoding byte for byte, for a message of %i bytes', (length) => {
    const raw = Uint8Array.from({ length }, (_, i) => (i * 7) % 256);
    expect(Buffer.from(envelope('coordination.svc.io/v1', 'Lease', raw)).equals(byProtobufjs('coordination.svc.io/v1', 'Lease', raw))).toBe(true);
    expect(Buffer.from(envelope('v1', 'ConfigMap', raw)).equals(byProtobufjs('v1', 'ConfigMap', raw))).toBe(true);
  });

  it('carries an object that decodes back to itself', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', resourceVersion: '7' }, data: { a: 'b' } };
    expect(decodeProtobuf(encodeProtobuf(configMap))).toEqual(configMap);
  });
});
