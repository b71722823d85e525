import { describe, expect, it } from 'vitest';
import { builtinRegistry, escapeFieldValue, isStatusError, matchesFields, parseFieldSelector } from '../../src/api/index.js';

const registry = builtinRegistry();
const pods = registry.lookup('', 'v1', 'pods')!;
const podFields = Object.keys(pods.fieldSelectors);

const pod = (name: string, spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'i' }], ...spec },
  status,
});

const rejects = (text: string, message: string | RegExp) => {
  let caught: unknown;
  try {
    parseFieldSelector(text, podFields);
  } catch (error) {
    caught = error;
  }
  expect(isStatusError(caught, 'BadRequest')).toBe(true);
  expect((caught as Error).message).toMatch(message);
};

describe('parseFieldSelector', () => {
  it('parses =, == and != terms separated by commas', () => {
    expect(parseFieldSelector('metadata.name=a,spec.nodeName==n,status.phase!=Running', podFields).requirements).toEqual([
      { field: 'metadata.name', operator: 'Equals', value: 'a' },
      { field: 'spec.nodeName', operator: 'Equals', value: 'n' },
      { field: 'status.phase', operator: 'NotEquals', value: 'Running' },
    ]);
  });

  it('selects everything when empty', () => {
    expect(parseFieldSelector('', podFields).requirements).toEqual([]);
  });

  it('accepts an empty value', () => {
    expect(parseFieldSelector('spec.nodeName=', podFields).requirements[0]?.value).toBe('');
  });

  it('unescapes \\, \\= \\! and \\\\ in values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b\\=c\\!d\\\\e', podFields).requirements[0]?.value).toBe('a,b=c!d\\e');
  });

  it('does not split on an escaped comma', () => {
    expect(parseFieldSelector('metadata.name=a\\,status.phase\\=x', podFields).requirements).toEqual([
      { field: 'metadata.name', operator: 'Equals', value: 'a,status.phase=x' },
    ]);
  });

  it('round-trips any value through escapeFieldValue', () => {
    const value = 'a,b=c!=d\\e';
    expect(parseFieldSelector(`metadata.name=${escapeFieldValue(value)}`, podFields).requirements[0]?.value).toBe(value);
  });

  it('rejects a field the type does not offer with "field label not supported"', () => {
    rejects('spec.unknownField=x', /^field label not supported: spec\.unknownField$/);
    rejects('metadata.name=a,metadata.labels=b', /^field label not supported: metadata\.labels$/);
  });

  it('rejects a term without an operator', () => rejects('metadata.name', /invalid field selector/));
  it('rejects an unescaped = in a value', () => rejects('metadata.name=a=b', /unescaped '='/));
  it('rejects an unknown escape sequence', () => rejects('metadata.name=a\\b', /invalid escape sequence/));
  it('rejects a dangling backslash', () => rejects('metadata.name=a\\', /invalid escape sequence/));
});

describe('matchesFields', () => {
  const p1 = pod('p1', { nodeName: 'node-a', hostNetwork: true }, { phase: 'Running', podIP: '10.0.0.1' });
  const p2 = pod('p2', {}, { phase: 'Pending' });

  const selects = (text: string) =>
    [p1, p2].filter((p) => matchesFields(parseFieldSelector(text, podFields), pods, p)).map((p) => p.metadata.name);

  it('matches names, namespaces and pod fields', () => {
    expect(selects('metadata.name=p1')).toEqual(['p1']);
    expect(selects('metadata.namespace=default')).toEqual(['p1', 'p2']);
    expect(selects('spec.nodeName=node-a')).toEqual(['p1']);
    expect(selects('status.phase!=Running')).toEqual(['p2']);
    expect(selects('status.podIP=10.0.0.1')).toEqual(['p1']);
  });

  it('reads an unset field as the empty string', () => {
    expect(selects('spec.nodeName=')).toEqual(['p2']);
    expect(selects('spec.nodeName!=')).toEqual(['p1']);
  });

  it('reads booleans as true/false, unset being false', () => {
    expect(selects('spec.hostNetwork=true')).toEqual(['p1']);
    expect(selects('spec.hostNetwork=false')).toEqual(['p2']);
  });

  it('reads integers in decimal, unset being 0', () => {
    const replicasets = registry.lookup('apps', 'v1', 'replicasets')!;
    const fields = Object.keys(replicasets.fieldSelectors);
    const rs = (replicas?: number) => ({ metadata: { name: 'r' }, status: replicas === undefined ? {} : { replicas } });
    expect(matchesFields(parseFieldSelector('status.replicas=3', fields), replicasets, rs(3))).toBe(true);
    expect(matchesFields(parseFieldSelector('status.replicas=0', fields), replicasets, rs())).toBe(true);
  });

  it('reads the core Event source as its component', () => {
    const events = registry.lookup('', 'v1', 'events')!;
    const event = { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, source: { component: 'kubelet' } };
    const fields = Object.keys(events.fieldSelectors);
    expect(matchesFields(parseFieldSelector('source=kubelet,involvedObject.kind=Pod', fields), events, event)).toBe(true);
  });

  it('ands the requirements', () => {
    expect(selects('spec.nodeName=node-a,status.phase=Pending')).toEqual([]);
  });
});
