// FieldsV1 shared by the protobuf encoder and decoder (src/encoding/protobuf/shared-json.ts): a
// body that sends back the text of a FieldsV1 this process marked as shared decodes, when the
// decoder asks for it (the API server's request bodies), to that very object; any other text, a
// value not marked, and a decoder that does not ask (clients) get a parse, as before. Either way
// the decoded object is what JSON gives for the text.
import { describe, expect, it } from 'vitest';
import { decodeProtobuf, encodeProtobuf, shareEmbeddedJson, type JsonObject } from '../../src/encoding/index.js';

/** A node's Lease as the API server answers it: its node agent's managedFields entry owns the owner reference and the spec. */
function lease(node: string, fieldsV1: JsonObject, renewTime = '2026-11-28T09:00:00.000000Z'): JsonObject {
  return {
    apiVersion: 'coordination.svc.io/v1',
    kind: 'Lease',
    metadata: {
      name: node,
      namespace: 'svc-node-lease',
      resourceVersion: '12',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: `uid-${node}` }],
      managedFields: [
        { manager: 'svc-nodeagent', operation: 'Update', apiVersion: 'coordination.svc.io/v1', time: '2026-11-28T09:00:00Z', fieldsType: 'FieldsV1', fieldsV1 },
      ],
    },
    spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime },
  };
}

function fieldsOf(node: string): JsonObject {
  return {
    'f:metadata': { 'f:ownerReferences': { '.': {}, [`k:{"uid":"uid-${node}"}`]: {} } },
    'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:renewTime': {} },
  };
}

const fieldsV1Of = (object: JsonObject): unknown =>
  ((object['metadata'] as JsonObject)['managedFields'] as JsonObject[])[0]!['fieldsV1'];

describe('FieldsV1 shared by the protobuf encoder and decoder', () => {
  it('decodes the text of a shared FieldsV1 it encoded to that very object, for a decoder that asks', () => {
    const fields = fieldsOf('node-a');
    shareEmbeddedJson(fields);
    // The server's answer: the first encoding notes the value under its text.
    const answer = encodeProtobuf(lease('node-a', fields));
    // The node sends it back with a new renewTime: its own encoding of a parse of what it got.
    const received = decodeProtobuf(answer);
    const renewal = encodeProtobuf(lease('node-a', fieldsV1Of(received) as JsonObject, '2026-11-28T09:00:10.000000Z'));

    const decoded = decodeProtobuf(renewal, { sharedJson: true });
    expect(fieldsV1Of(decoded)).toBe(fields);
    expect(decoded).toEqual(lease('node-a', fields, '2026-11-28T09:00:10.000000Z'));
  });

  it('gives a client (a decoder that does not ask) a parse of its own, equal to the value', () => {
    const fields = fieldsOf('node-b');
    shareEmbeddedJson(fields);
    const bytes = encodeProtobuf(lease('node-b', fields));
    const decoded = decodeProtobuf(bytes);
    expect(fieldsV1Of(decoded)).not.toBe(fields);
    expect(fieldsV1Of(decoded)).toEqual(fields);
  });

  it('parses a text no shared value was encoded to, and a value that was not marked', () => {
    const shared = fieldsOf('node-c');
    shareEmbeddedJson(shared);
    encodeProtobuf(lease('node-c', shared));
    // Another node's entry, and an equal copy of node-c's that nobody marked: parsed.
    const other = fieldsOf('node-d');
    const decodedOther = decodeProtobuf(encodeProtobuf(lease('node-d', other)), { sharedJson: true });
    expect(fieldsV1Of(decodedOther)).not.toBe(other);
    expect(fieldsV1Of(decodedOther)).toEqual(other);
    // A changed entry (a field more) is not the shared one either.
    const changed = { ...shared, 'f:spec': { ...(shared['f:spec'] as JsonObject), 'f:acquireTime': {} } };
    const decodedChanged = decodeProtobuf(encodeProtobuf(lease('node-c', changed)), { sharedJson: true });
    expect(fieldsV1Of(decodedChanged)).toEqual(changed);
    expect(fieldsV1Of(decodedChanged)).not.toBe(shared);
  });

  it('encodes a shared value as the JSON text of it, the same bytes every time', () => {
    const fields = fieldsOf('node-e');
    const plain = encodeProtobuf(lease('node-e', structuredClone(fields)));
    shareEmbeddedJson(fields);
    const first = encodeProtobuf(lease('node-e', fields));
    const second = encodeProtobuf(lease('node-e', fields));
    expect(Buffer.from(first).equals(Buffer.from(plain))).toBe(true);
    expect(Buffer.from(second).equals(Buffer.from(plain))).toBe(true);
  });
});
