import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { negotiate, parseAccept, parseMediaType, type Offer } from '../../src/encoding/index.js';

const read = (target: Offer['target'], more: Partial<Offer> = {}): Offer => ({ target, protobuf: true, cbor: false, views: true, ...more });
const pick = (accept: string | undefined, offer: Offer = read('object')) => {
  const rep = negotiate(accept, offer);
  return `${rep.codec}:${rep.view}${rep.view === 'Object' ? '' : `:${rep.viewGroup}/${rep.viewVersion}`}`;
};
const refusal = (accept: string, offer: Offer = read('object')) => {
  try {
    negotiate(accept, offer);
  } catch (error) {
    if (isStatusError(error)) return error.toStatus();
    throw error;
  }
  throw new Error(`${accept} was accepted`);
};

describe('media types', () => {
  it('parses parameters, quotes and weights, lowercasing names but not values', () => {
    expect(parseMediaType('Application/JSON; AS=Table; g="meta.k8s.io";v=v1;q=0.5')).toEqual({
      type: 'application',
      subtype: 'json',
      params: { as: 'Table', g: 'meta.k8s.io', v: 'v1' },
      q: 0.5,
    });
  });
  it('skips entries that do not parse and treats an empty Accept as */*', () => {
    expect(parseAccept('nonsense, application/yaml;q=2, application/json').map((m) => m.subtype)).toEqual(['json']);
    expect(parseAccept('')).toEqual([{ type: '*', subtype: '*', params: {}, q: 1 }]);
  });
});

describe('Accept negotiation', () => {
  it.each([
    [undefined, 'json:Object'],
    ['*/*', 'json:Object'],
    ['application/*', 'json:Object'],
    ['application/yaml', 'yaml:Object'],
    ['application/yaml;q=0.5, application/json', 'json:Object'],
    ['application/json;q=0.1, application/yaml', 'yaml:Object'],
    ['text/html, application/yaml;q=0.3', 'yaml:Object'],
    ['application/vnd.kubernetes.protobuf, application/json', 'protobuf:Object'],
    ['application/vnd.svc.protobuf;q=0.5, application/json', 'json:Object'],
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', 'json:Table:meta.k8s.io/v1'],
    ['application/json;as=Table;g=meta.svc.io;v=v1', 'json:Table:meta.svc.io/v1'],
    ['application/yaml;as=PartialObjectMetadata;g=meta.svc.io;v=v1', 'yaml:PartialObjectMetadata:meta.svc.io/v1'],
    ['application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1, application/json;q=0.9', 'json:Object'],
    ['application/json;as=Table;g=meta.svc.io;v=v1;q=0, application/yaml', 'yaml:Object'],
    ['application/json, application/json;as=Table;g=meta.svc.io;v=v1', 'json:Table:meta.svc.io/v1'],
  ])('for a single object, %s → %s', (accept, expected) => {
    expect(pick(accept)).toBe(expected);
  });

  it('serves the list view to lists (whichever name the client used), the object view to objects and watches', () => {
    expect(pick('application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1', read('list'))).toBe('json:PartialObjectMetadataList:meta.svc.io/v1');
    expect(pick('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', read('watch'))).toBe('json:PartialObjectMetadata:meta.k8s.io/v1');
    // The spec: a collection's metadata-only view is the List, whichever of the two was named.
    expect(pick('application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1', read('list'))).toBe('json:PartialObjectMetadataList:meta.svc.io/v1');
    expect(refusal('application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1', read('object'))).toMatchObject({ code: 406, reason: 'NotAcceptable' });
    expect(refusal('application/json;as=PartialObjectMetadataList;g=meta.svc.io;v=v1', read('watch'))).toMatchObject({ code: 406, reason: 'NotAcceptable' });
  });

  it('answers 406 when nothing asked for is served', () => {
    expect(refusal('text/html')).toMatchObject({ code: 406, reason: 'NotAcceptable' });
    expect(refusal('application/cbor')).toMatchObject({ code: 406 });
    expect(refusal('application/json;as=Table;g=other.io;v=v1')).toMatchObject({ code: 406 });
    expect(refusal('application/json;as=Table;g=meta.svc.io;v=v1', read('object', { views: false }))).toMatchObject({ code: 406 });
    expect(refusal('application/vnd.svc.protobuf', read('object', { protobuf: false }))).toMatchObject({ code: 406 });
    expect(refusal('application/yaml', read('watch'))).toMatchObject({ code: 406 });
    expect(refusal('application/json;q=0')).toMatchObject({ code: 406 });
  });

  it('offers CBOR only behind its gate, as cbor-seq for watches', () => {
    expect(pick('application/cbor', read('object', { cbor: true }))).toBe('cbor:Object');
    expect(negotiate('application/cbor-seq', read('watch', { cbor: true })).contentType).toBe('application/cbor-seq');
    expect(negotiate('application/vnd.kubernetes.protobuf', read('watch')).contentType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
  });

  it('answers a header it has seen with the same frozen representation, per offer; a refusal every time', () => {
    const accept = 'application/vnd.kubernetes.protobuf, application/json';
    const first = negotiate(accept, read('object'));
    expect(negotiate(accept, read('object'))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.codec).toBe('protobuf');
    // The same header for a type without protobuf messages, or for a watch, is its own answer.
    expect(negotiate(accept, read('object', { protobuf: false })).codec).toBe('json');
    expect(negotiate(accept, read('watch')).contentType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    expect(negotiate(accept, read('object'))).toBe(first);
    for (let i = 0; i < 2; i++) expect(refusal('text/html')).toMatchObject({ code: 406, reason: 'NotAcceptable' });
  });
});
