// Every built-in kind, created with a minimal body, answers with Kubernetes' defaults and the
// fields Go always writes, and the same object whichever way it is read: the create's answer,
// get, list, a watch's ADDED event, protobuf and CBOR. Defaults are applied on the write
// path, so what is stored is what is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTypes, customResourceDefinitionType } from '../../src/api/index.js';
import { decodeCbor, decodeProtobuf } from '../../src/encoding/index.js';
import { apiVersionOf } from '../../src/apiserver/api-object.js';
import { isStream, openWatch } from '../support/watch-client.js';
import { DEFAULTS_CASES } from '../support/default-fixtures.js';
import { startTestServer, TOKEN, type TestServer } from './harness.js';

const KINDS = [...builtinTypes, customResourceDefinitionType];
const auth = { authorization: `Bearer ${TOKEN}` };

describe('defaults as stored and as served, for every built-in kind', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory', { listen: true, featureGates: { CBORServingAndStorage: true } });
  });
  afterAll(() => s.close());

  it.each(DEFAULTS_CASES.map((c) => [c.key, c] as const))('%s', async (key, c) => {
    const type = KINDS.find((t) => `${t.group}/${t.kind}` === key)!;
    const apiVersion = apiVersionOf(type);
    const base = type.group === '' ? '/api/v1' : `/apis/${apiVersion}`;
    const collection = `${base}/${c.namespaced ? 'namespaces/default/' : ''}${c.resource}`;
    const name = c.name ?? `defaults-${c.resource.slice(0, 20)}`;
    const created = await s.call('POST', collection, { apiVersion, kind: type.kind, metadata: { name }, ...structuredClone(c.body) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ ...c.expected, metadata: { ...((c.expected['metadata'] as object | undefined) ?? {}), name } });
    expect(created.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    let got = await s.call('GET', `${collection}/${name}`);
    if (c.settled) {
      for (let polls = 0; !c.settled(got.body); polls++) {
        if (polls === 500) throw new Error(`${key} never settled: ${JSON.stringify(got.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        got = await s.call('GET', `${collection}/${name}`);
      }
    } else {
      expect(got.body).toEqual(created.body);
    }
    const current = got.body;
    const listed = await s.call('GET', `${collection}?fieldSelector=metadata.name=${name}`);
    expect(listed.body.items).toEqual([current]);
    const watch = await openWatch(`${s.url}${collection}?watch=1&resourceVersion=0&fieldSelector=metadata.name=${name}`, { token: TOKEN });
    if (!isStream(watch)) throw new Error(`watch refused: ${watch.status}`);
    try {
      const [event] = await watch.next();
      expect(event).toEqual({ type: 'ADDED', object: current });
    } finally {
      watch.abort();
    }

    // The codecs carry the same object: empty structs and zeros survive protobuf and CBOR.
    if (type !== customResourceDefinitionType) {
      const pb = await s.app.inject({ method: 'GET', url: `${collection}/${name}`, headers: { ...auth, accept: 'application/vnd.kubernetes.protobuf' } });
      expect(pb.statusCode).toBe(200);
      // Less what protobuf does not carry, by design (representations.md): empty strings and lists.
      expect(decodeProtobuf(pb.rawPayload)).toEqual(withoutEmpty(current));
    }
    const cbor = await s.app.inject({ method: 'GET', url: `${collection}/${name}`, headers: { ...auth, accept: 'application/cbor' } });
    expect(cbor.statusCode).toBe(200);
    expect(decodeCbor(cbor.rawPayload)).toEqual(current);

    // A write that leaves the defaults out keeps them, and does not count as a spec change. (Not
    // for a pod: admission gave it its service account on create, and its spec is immutable.)
    if (key === '/Pod') return;
    // A Job's selector and its template's labels are generated from its uid on create; a PUT
    // without them is refused, as upstream refuses it, so this one carries them.
    const body = structuredClone(c.body) as { spec?: Record<string, unknown> };
    if (key === 'batch/Job') {
      const spec = body.spec as { template: { metadata?: unknown } };
      body.spec = { ...spec, selector: current.spec.selector, template: { ...spec.template, metadata: { labels: current.spec.template.metadata.labels } } };
    }
    const replaced = await s.call('PUT', `${collection}/${name}`, { apiVersion, kind: type.kind, metadata: { ...current.metadata }, ...body });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject(withoutStatus(c.expected));
    expect(replaced.body.metadata.generation).toBe(current.metadata.generation);
  });
});

function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== '' && !(Array.isArray(field) && field.length === 0))
      .map(([k, field]) => [k, withoutEmpty(field)]),
  );
}

const withoutStatus = (expected: Record<string, unknown>) => {
  const { status: _status, ...rest } = expected;
  return rest;
};
