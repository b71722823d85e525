import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { ADMIN_USER, ensureAdminToken, parseTokenFile, readTokenFile, tokenAuthenticator } from '../../src/apiserver/authn/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tokens-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The Status an authenticator call was rejected with. */
async function rejection(call: () => unknown) {
  try {
    await call();
  } catch (error) {
    expect(isStatusError(error)).toBe(true);
    return (error as { toStatus(): { reason: string; code: number } }).toStatus();
  }
  throw new Error('not rejected');
}

describe('the token file', () => {
  it('reads token, user, uid and quoted groups; skips blank lines and comments', () => {
    const entries = parseTokenFile(
      ['# tokens for the test cluster', 'tok-alice,alice,u-1,"dev,ops"', '', '   ', 'tok-bob, bob , u-2', 'tok-carol,carol,u-3,viewers'].join('\n'),
      'tokens.csv',
    );
    expect(entries).toEqual([
      { token: 'tok-alice', user: { name: 'alice', uid: 'u-1', groups: ['dev', 'ops'] } },
      { token: 'tok-bob', user: { name: 'bob', uid: 'u-2', groups: [] } },
      { token: 'tok-carol', user: { name: 'carol', uid: 'u-3', groups: ['viewers'] } },
    ]);
  });

  it('accepts CRLF line ends, quoted fields anywhere and doubled quotes inside them', () => {
    expect(parseTokenFile('"tok,1","Dana ""D"" Smith",u-4,""\r\n', 'f')).toEqual([
      { token: 'tok,1', user: { name: 'Dana "D" Smith', uid: 'u-4', groups: [] } },
    ]);
  });

  it.each([
    ['tok,alice', /tokens\.csv:2: expected token,user,uid/],
    ['tok,alice,u,g1,g2', /tokens\.csv:2: expected at most 4 fields.*quote the groups/],
    ['tok,alice,u,"dev,ops', /tokens\.csv:2: a quoted field is not closed/],
    ['tok,alice,u,"dev"x', /tokens\.csv:2: unexpected text after a quoted field/],
    ['tok,al"ice,u', /tokens\.csv:2: a quote inside an unquoted field/],
    [',alice,u', /tokens\.csv:2: the token is empty/],
    ['tok2,,u', /tokens\.csv:2: the user name is empty/],
    ['ok-token,bob,u2', /tokens\.csv:2: the same token as line 1/],
  ])('rejects %j naming the line', (line, message) => {
    expect(() => parseTokenFile(`ok-token,ok,u1\n${line}\n`, 'tokens.csv')).toThrow(message);
  });

  it('names the file that cannot be read', async () => {
    await expect(readTokenFile('/nonexistent/tokens.csv')).rejects.toThrow('--token-auth-file /nonexistent/tokens.csv: cannot read (ENOENT)');
  });

  it('reads a file from disk', async () => {
    const path = join(tempDir(), 'tokens.csv');
    writeFileSync(path, 'abc,alice,u-1\n');
    expect(await readTokenFile(path)).toEqual([{ token: 'abc', user: { name: 'alice', uid: 'u-1', groups: [] } }]);
  });
});

describe('the admin token', () => {
  it('is minted on first start into admin-token (0600) and read back later', async () => {
    const dir = tempDir();
    const token = await ensureAdminToken(dir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    expect(readFileSync(join(dir, 'admin-token'), 'utf8').trim()).toBe(token);
    expect(statSync(join(dir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(await ensureAdminToken(dir)).toBe(token);
  });

  it('differs between data dirs', async () => {
    expect(await ensureAdminToken(tempDir())).not.toBe(await ensureAdminToken(tempDir()));
  });

  it('refuses a file that holds no token', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'admin-token'), 'not a token\n');
    await expect(ensureAdminToken(dir)).rejects.toThrow(/does not hold a token/);
  });

  it('belongs to svc-admin in system:masters', () => {
    expect(ADMIN_USER).toEqual({ name: 'svc-admin', uid: 'svc-admin', groups: ['system:masters', 'system:authenticated'] });
  });
});

describe('tokenAuthenticator', () => {
  const authenticate = tokenAuthenticator([
    { token: 'tok-alice', user: { name: 'alice', uid: 'u-1', groups: ['dev'] } },
    { token: 'tok-admin', user: ADMIN_USER },
  ]);

  it('resolves a known bearer token to its user, adding system:authenticated', async () => {
    expect(await authenticate({ authorization: 'Bearer tok-alice' })).toEqual({ name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] });
    expect(await authenticate({ authorization: 'Bearer tok-admin' })).toEqual(ADMIN_USER);
  });

  it('accepts the scheme in any case and spaces around the header', async () => {
    expect((await authenticate({ authorization: ' bearer tok-alice ' }))?.name).toBe('alice');
  });

  it('reads a token after two spaces as no bearer token, as upstream does (the request is anonymous)', async () => {
    expect(await authenticate({ authorization: 'Bearer  tok-admin' })).toBeUndefined();
    expect(await authenticate({ authorization: 'bearer   tok-alice' })).toBeUndefined();
  });

  it('leaves a request without credentials to the app', async () => {
    expect(await authenticate({})).toBeUndefined();
  });

  it('leaves another well-formed scheme to other authenticators', async () => {
    expect(await authenticate({ authorization: 'Basic YWxpY2U6cHc=' })).toBeUndefined();
  });

  it.each([['Bearer tok-bob'], ['Bearer tok-alic'], ['Bearer tok-alice2'], ['Bearer'], ['Bearer '], ['Bearer a b'], ['tok-alice'], ['']])(
    'rejects %j as Unauthorized',
    async (header) => {
      expect(await rejection(() => authenticate({ authorization: header }))).toMatchObject({ reason: 'Unauthorized', code: 401 });
    },
  );

  it('rejects repeated Authorization headers', async () => {
    expect(await rejection(() => authenticate({ authorization: ['Bearer tok-alice', 'Bearer tok-admin'] }))).toMatchObject({ code: 401 });
  });
});
