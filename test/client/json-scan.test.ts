import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { findMember, scanElements, scanMembers, skipValue, stringMember } from '../../src/client/lazy/json-scan.js';
import { seededRandom } from '../support/prng.js';

const keysOf = (s: string) => {
  const { ranges } = scanMembers(s, 0);
  const out: Record<string, unknown> = {};
  for (let m = 0; m < ranges.length; m += 4) out[JSON.parse(s.slice(ranges[m], ranges[m + 1])) as string] = JSON.parse(s.slice(ranges[m + 2], ranges[m + 3]));
  return out;
};

describe('json-scan', () => {
  it('finds each member and its value, as JSON.parse reads them', () => {
    const s = JSON.stringify({ a: 1, b: 'x', c: { d: [1, { e: '}' }] }, f: null, g: true, h: -1.5e3, i: [] });
    expect(keysOf(s)).toEqual(JSON.parse(s));
    expect(scanMembers(s, 0).end).toBe(s.length);
  });

  it('skips braces, brackets and quotes inside strings, and escaped quotes and backslashes', () => {
    const tricky = { 'k"ey': 'a}b{c]d[', back: 'ends with \\', q: 'say "hi"', nested: { s: '\\"}' }, tail: 1 };
    const s = JSON.stringify(tricky);
    expect(keysOf(s)).toEqual(tricky);
    expect(stringMember(s, scanMembers(s, 0).ranges, 'back')).toBe('ends with \\');
    expect(stringMember(s, scanMembers(s, 0).ranges, 'k"ey')).toBe('a}b{c]d[');
  });

  it('reads escaped keys and unicode values (raw and \\u-escaped, surrogate pairs)', () => {
    const s = '{"\\u006eame":"caf\\u00e9","raw":"日本 🚀","pair":"\\ud83d\\ude80","nl":"a\\nb"}';
    const { ranges } = scanMembers(s, 0);
    expect(stringMember(s, ranges, 'name')).toBe('café');
    expect(stringMember(s, ranges, 'raw')).toBe('日本 🚀');
    expect(stringMember(s, ranges, 'pair')).toBe('🚀');
    expect(stringMember(s, ranges, 'nl')).toBe('a\nb');
  });

  it('tolerates whitespace anywhere JSON allows it', () => {
    const s = ' {\n "a" :\t[ 1 , 2 ] ,\r\n "b" : { } , "c":"" } ';
    const start = s.indexOf('{');
    const { ranges, end } = scanMembers(s, start);
    expect(ranges.length / 4).toBe(3);
    expect(s.slice(end).trim()).toBe('');
    expect(JSON.parse(s.slice(ranges[2], ranges[3]))).toEqual([1, 2]);
  });

  it('answers a missing member as absent, and a non-string member as no string', () => {
    const s = '{"metadata":{"name":"a","generation":3}}';
    const meta = scanMembers(s, scanMembers(s, 0).ranges[2]!).ranges;
    expect(stringMember(s, meta, 'namespace')).toBeUndefined();
    expect(stringMember(s, meta, 'generation')).toBeUndefined();
    expect(findMember(s, meta, 'labels')).toBe(-1);
  });

  it('finds the last of repeated keys, as JSON.parse keeps the last', () => {
    const s = '{"a":"first","b":1,"a":"last"}';
    expect(stringMember(s, scanMembers(s, 0).ranges, 'a')).toBe(JSON.parse(s).a);
  });

  it('splits arrays into their elements', () => {
    const s = '[{"a":"]"}, 2 ,"x",[3,[4]],null]';
    const { ranges } = scanElements(s, 0);
    const values = [];
    for (let e = 0; e < ranges.length; e += 2) values.push(JSON.parse(s.slice(ranges[e], ranges[e + 1])));
    expect(values).toEqual(JSON.parse(s));
  });

  it('refuses malformed structure with an InternalError StatusError', () => {
    for (const bad of ['{"a" 1}', '{"a":1', '{"a":"x}', '{a:1}', '{"a":1;"b":2}', '{"a":}', '[1 2]', 'x']) {
      let error: unknown;
      try {
        if (bad.startsWith('[')) scanElements(bad, 0);
        else scanMembers(bad, 0);
      } catch (e) {
        error = e;
      }
      expect(isStatusError(error, 'InternalError'), bad).toBe(true);
    }
  });

  it('agrees with JSON.parse on random documents (property)', () => {
    const random = seededRandom(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const chars = ['a', 'Z', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'é', '日', '🚀', '\u0001'];
    const str = () => Array.from({ length: Math.floor(random() * 6) }, () => pick(chars)).join('');
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.3) return pick([str(), Math.floor(random() * 1e6) / 7, true, false, null]);
      if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [str(), value(depth + 1)]));
    };
    for (let i = 0; i < 300; i += 1) {
      const doc = Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 5) }, () => [str(), value(0)]));
      const s = JSON.stringify(doc, null, random() < 0.5 ? 1 : undefined);
      expect(keysOf(s)).toEqual(JSON.parse(s));
      expect(skipValue(s, 0)).toBe(s.length);
    }
  });
});
