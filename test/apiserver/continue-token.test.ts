import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { CONTINUE_EXPIRED_MESSAGE, CONTINUE_TOKEN_TTL_MS, ContinueTokens } from '../../src/apiserver/continue-token.js';

const KEY = new Uint8Array(32).fill(7);
const PODS = '/registry/core/pods/default/';

function statusOf(read: () => unknown) {
  try {
    read();
  } catch (error) {
    if (isStatusError(error)) return error.toStatus();
    throw error;
  }
  throw new Error('expected a StatusError');
}

describe('continue tokens', () => {
  it('round-trip the revision and the start key', () => {
    const tokens = new ContinueTokens(KEY, () => 1_000);
    const token = tokens.issue(PODS, { revision: 12, start: 'web-3!' });
    expect(tokens.read(PODS, token)).toEqual({ revision: 12, start: 'web-3!', issuedAt: 1_000 });
  });

  it('stay good for a server with the same key (a restart)', () => {
    const token = new ContinueTokens(KEY).issue(PODS, { revision: 5, start: 'a!' });
    expect(new ContinueTokens(KEY).read(PODS, token).revision).toBe(5);
  });

  it('are a 400 when garbage, tampered with, from another key or for another collection', () => {
    const tokens = new ContinueTokens(KEY);
    const token = tokens.issue(PODS, { revision: 5, start: 'a!' });
    const [body, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), start: 'z!' })).toString('base64url');
    for (const bad of ['', 'garbage', '.', `${body}.`, `${forged}.${mac}`, `${body}.${mac.slice(1)}x`]) {
      expect(statusOf(() => tokens.read(PODS, bad))).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
    expect(statusOf(() => new ContinueTokens(new Uint8Array(32)).read(PODS, token))).toMatchObject({ code: 400 });
    expect(statusOf(() => tokens.read('/registry/core/pods/other/', token))).toMatchObject({ code: 400 });
  });

  it('expire after five minutes with a 410 that carries a token going on at the newest state', () => {
    let now = 0;
    const tokens = new ContinueTokens(KEY, () => now);
    const token = tokens.issue(PODS, { revision: 5, start: 'b!' });
    now = CONTINUE_TOKEN_TTL_MS + 1;
    const status = statusOf(() => tokens.read(PODS, token));
    expect(status).toMatchObject({ code: 410, reason: 'Expired', message: CONTINUE_EXPIRED_MESSAGE });
    const fresh = (status.metadata as { continue: string }).continue;
    expect(tokens.read(PODS, fresh)).toMatchObject({ revision: -1, start: 'b!' });
  });
});
