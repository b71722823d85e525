/**
 * The agent server's pure parts: the CRI log line format, partial-line joining, the logs query,
 * rotated file names, cipher suite names, the request → SubjectAccessReview attribute mapping
 * and the TTL cache.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { NodeAgentFlags } from '../../../src/cli/nodeagent-flags.js';
import type { AgentServerFlags } from '../../../src/nodeagent/index.js';
import {
  agentRequestAttributes,
  EntryJoiner,
  formatEntry,
  opensslCiphers,
  parseLogMaxSize,
  parseLogOptions,
  parseLogRecord,
  rfc3339Nanos,
  rotatedName,
} from '../../../src/nodeagent/index.js';

const rec = (line: string) => parseLogRecord(Buffer.from(line));

describe('the CRI log format', () => {
  it('parses time, stream, tag and content, keeping spaces inside the content', () => {
    const r = rec('2024-05-01T10:00:00.123456789Z stdout F hello  world ')!;
    expect(r.time).toBe('2024-05-01T10:00:00.123456789Z');
    expect(r.stream).toBe('stdout');
    expect(r.partial).toBe(false);
    expect(r.content.toString()).toBe('hello  world ');
    expect(r.nanos).toBe(BigInt(Date.parse('2024-05-01T10:00:00Z')) * 1_000_000n + 123456789n);
    expect(rec('2024-05-01T10:00:00Z stderr P part')!.partial).toBe(true);
    expect(rec('2024-05-01T10:00:00Z stdout F ')!.content.length).toBe(0);
  });

  it('rejects lines that are not records', () => {
    expect(rec('garbage')).toBeUndefined();
    expect(rec('2024-05-01T10:00:00Z stdin F x')).toBeUndefined();
    expect(rec('yesterday stdout F x')).toBeUndefined();
  });

  it('reads RFC 3339 times with offsets and short fractions', () => {
    expect(rfc3339Nanos('2024-05-01T12:00:00+02:00')).toBe(rfc3339Nanos('2024-05-01T10:00:00Z'));
    expect(rfc3339Nanos('2024-05-01T10:00:00.5Z')! - rfc3339Nanos('2024-05-01T10:00:00Z')!).toBe(500_000_000n);
    expect(rfc3339Nanos('2024-05-01 10:00:00')).toBeUndefined();
  });

  it('joins partial records into one line stamped with the first time', () => {
    const j = new EntryJoiner();
    expect(j.push(rec('2024-05-01T10:00:00.1Z stdout P abc')!)).toBeUndefined();
    expect(j.push(rec('2024-05-01T10:00:00.2Z stdout P def')!)).toBeUndefined();
    const entry = j.push(rec('2024-05-01T10:00:00.3Z stdout F ghi')!)!;
    expect(entry.content.toString()).toBe('abcdefghi');
    expect(entry.time).toBe('2024-05-01T10:00:00.1Z');
    expect(formatEntry(entry, false).toString()).toBe('abcdefghi\n');
    expect(formatEntry(entry, true).toString()).toBe('2024-05-01T10:00:00.1Z abcdefghi\n');
  });
});

describe('the logs query', () => {
  it('parses every option', () => {
    const now = () => Date.parse('2024-05-01T10:00:10Z');
    const o = parseLogOptions({ follow: 'true', previous: '1', timestamps: 'True', tailLines: '3', limitBytes: '10', sinceSeconds: '5' }, now);
    expect(o).toMatchObject({ follow: true, previous: true, timestamps: true, tailLines: 3, limitBytes: 10 });
    expect(o.sinceNanos).toBe(rfc3339Nanos('2024-05-01T10:00:05Z'));
    expect(parseLogOptions({ sinceTime: '2024-05-01T10:00:00Z' }).sinceNanos).toBe(rfc3339Nanos('2024-05-01T10:00:00Z'));
    expect(parseLogOptions({})).toMatchObject({ follow: false, previous: false, timestamps: false, tailLines: undefined });
  });

  it.each([
    [{ follow: 'maybe' }],
    [{ tailLines: '-1' }],
    [{ tailLines: 'x' }],
    [{ limitBytes: '0' }],
    [{ sinceSeconds: '0' }],
    [{ sinceTime: 'yesterday' }],
    [{ sinceSeconds: '5', sinceTime: '2024-05-01T10:00:00Z' }],
  ])('%o is a 400', (query) => {
    expect(() => parseLogOptions(query)).toThrow(expect.objectContaining({ code: 400, reason: 'BadRequest' }));
  });
});

describe('log rotation names and sizes', () => {
  it('names a rotated file <path>.<YYYYMMDD-hhmmss> in UTC', () => {
    expect(rotatedName('/logs/c/0.log', Date.parse('2024-05-01T09:08:07.999Z'))).toBe('/logs/c/0.log.20240501-090807');
  });
  it('reads max sizes as quantities', () => {
    expect(parseLogMaxSize('10Mi')).toBe(10 * 1024 * 1024);
    expect(parseLogMaxSize('512Ki')).toBe(512 * 1024);
    expect(parseLogMaxSize('1k')).toBe(1000);
    expect(parseLogMaxSize('2048')).toBe(2048);
    expect(() => parseLogMaxSize('ten')).toThrow(expect.objectContaining({ code: 400 }));
  });
});

describe('--tls-cipher-suites', () => {
  it('maps Go names to OpenSSL names and passes OpenSSL names through', () => {
    expect(opensslCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'AES256-GCM-SHA384', 'TLS_AES_128_GCM_SHA256'])).toBe(
      'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:AES256-GCM-SHA384:TLS_AES_128_GCM_SHA256',
    );
    expect(opensslCiphers([])).toBeUndefined();
  });
  it('names an unknown suite in a 400', () => {
    expect(() => opensslCiphers(['TLS_MADE_UP'])).toThrow(/TLS_MADE_UP/);
  });
});

describe('request attributes for SubjectAccessReview', () => {
  it.each([
    ['GET', '/stats/summary', 'get', 'stats'],
    ['GET', '/stats', 'get', 'stats'],
    ['GET', '/metrics', 'get', 'metrics'],
    ['GET', '/metrics/cadvisor', 'get', 'metrics'],
    ['GET', '/logs/messages', 'get', 'log'],
    ['GET', '/spec/', 'get', 'spec'],
    ['POST', '/checkpoint/ns/pod/c', 'create', 'checkpoint'],
    ['GET', '/pods', 'get', 'proxy'],
    ['HEAD', '/healthz', 'get', 'proxy'],
    ['GET', '/containerLogs/ns/pod/c', 'get', 'proxy'],
    ['POST', '/exec/ns/pod/c', 'create', 'proxy'],
    ['PUT', '/configz', 'update', 'proxy'],
    ['PATCH', '/x', 'patch', 'proxy'],
    ['DELETE', '/x', 'delete', 'proxy'],
    ['GET', '/statsfoo', 'get', 'proxy'],
  ])('%s %s is verb %s on nodes/%s', (method, path, verb, subresource) => {
    expect(agentRequestAttributes(method, path, 'node-1')).toEqual({ verb, resource: 'nodes', subresource, name: 'node-1' });
  });
});

describe('AgentServerFlags', () => {
  it('is a subset of the parsed nodeagent flags: the daemon passes its resolved options as they are', () => {
    expectTypeOf<NodeAgentFlags>().toExtend<AgentServerFlags>();
  });
});
