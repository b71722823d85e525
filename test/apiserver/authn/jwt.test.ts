import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JwtError, parseJws, signJws, verifyJws, type JwsAlgorithm } from '../../../src/apiserver/authn/index.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const curves: Record<string, ReturnType<typeof generateKeyPairSync>> = {
  'P-256': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'P-384': generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  'P-521': generateKeyPairSync('ec', { namedCurve: 'P-521' }),
};

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof JwtError) return error.code;
    throw error;
  }
  return undefined;
};

describe('JWS on node:crypto', () => {
  it.each<[JwsAlgorithm, ReturnType<typeof generateKeyPairSync>]>([
    ['RS256', rsa],
    ['RS384', rsa],
    ['RS512', rsa],
    ['ES256', curves['P-256']!],
    ['ES384', curves['P-384']!],
    ['ES512', curves['P-521']!],
  ])('signs and verifies %s, and refuses a changed payload', (alg, pair) => {
    const token = signJws({ sub: 'x' }, pair.privateKey, alg, 'kid-1');
    const jws = parseJws(token);
    expect(jws).toMatchObject({ alg, kid: 'kid-1', payload: { sub: 'x' } });
    expect(() => verifyJws(jws, pair.publicKey)).not.toThrow();
    if (alg.startsWith('ES')) expect(jws.signature.length).toBe({ ES256: 64, ES384: 96, ES512: 132 }[alg as 'ES256']);
    const [h, , s] = token.split('.');
    const changed = parseJws(`${h}.${Buffer.from('{"sub":"y"}').toString('base64url')}.${s}`);
    expect(codeOf(() => verifyJws(changed, pair.publicKey))).toBe('BadSignature');
  });

  it('refuses a key of the wrong type or curve for the algorithm', () => {
    const jws = parseJws(signJws({}, curves['P-256']!.privateKey, 'ES256'));
    expect(codeOf(() => verifyJws(jws, rsa.publicKey))).toBe('BadSignature');
    expect(codeOf(() => verifyJws(jws, curves['P-384']!.publicKey))).toBe('BadSignature');
  });

  it.each([
    ['alg none', `${Buffer.from('{"alg":"none"}').toString('base64url')}.e30.`, 'UnsupportedAlgorithm'],
    ['alg HS256', `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.e30.abc`, 'UnsupportedAlgorithm'],
    ['no alg', `${Buffer.from('{}').toString('base64url')}.e30.abc`, 'UnsupportedAlgorithm'],
    ['padding', 'eyJhbGciOiJSUzI1NiJ9==.e30.abc', 'Malformed'],
    ['an impossible base64 length', 'eyJhbGciOiJSUzI1NiJ9.e30.a', 'Malformed'],
    ['a kid that is not a string', `${Buffer.from('{"alg":"RS256","kid":1}').toString('base64url')}.e30.abc`, 'Malformed'],
    ['one segment', 'abc', 'Malformed'],
  ])('parses %s as a JwtError', (_what, token, code) => {
    expect(codeOf(() => parseJws(token))).toBe(code);
  });
});
