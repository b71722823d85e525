import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unauthorized } from '../../api/index.js';
import { readOptional, writePrivateFile } from '../../pki/index.js';
import { withAuthenticatedGroup, type Authenticator, type RequestHeaders, type UserInfo } from './user.js';

/**
 * Bearer tokens: the static token file (`--token-auth-file`), the admin token the server mints
 * for itself, and the authenticator that resolves `Authorization: Bearer <token>` to a user.
 */

export interface TokenEntry {
  readonly token: string;
  readonly user: UserInfo;
}

export const ADMIN_USER: UserInfo = Object.freeze({
  name: 'svc-admin',
  uid: 'svc-admin',
  groups: Object.freeze(['system:masters', 'system:authenticated']),
});

const ADMIN_TOKEN_FILE = 'admin-token';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,}$/;

/** The one place credentials are turned down, so every rejection reads the same on the wire. */
export function rejected(): Error {
  return unauthorized('Unauthorized');
}

/**
 * Parses a token file: `token,user,uid[,"group1,group2"]` per line, fields CSV-quoted when they
 * hold commas (`""` is a quote inside quotes). Blank lines and lines starting with `#` are
 * skipped. `source` names the file in errors, which carry the line number.
 */
export function parseTokenFile(text: string, source: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((line, index) => {
    const at = `${source}:${index + 1}`;
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const fields = splitCsvLine(line, at);
    if (fields.length < 3) throw new Error(`${at}: expected token,user,uid[,"group1,group2"], found ${fields.length} field(s)`);
    if (fields.length > 4) throw new Error(`${at}: expected at most 4 fields, found ${fields.length} (quote the groups: "group1,group2")`);
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') throw new Error(`${at}: the token is empty`);
    if (name === '') throw new Error(`${at}: the user name is empty`);
    const earlier = lineOf.get(token);
    if (earlier !== undefined) throw new Error(`${at}: the same token as line ${earlier}`);
    lineOf.set(token, index + 1);
    const groupList = (groups ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter((g) => g !== '');
    entries.push({ token, user: { name, uid, groups: groupList } });
  });
  return entries;
}

function splitCsvLine(line: string, at: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new Error(`${at}: a quoted field is not closed`);
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      while (line[i] === ' ' || line[i] === '\t') i++;
      if (i < line.length && line[i] !== ',') throw new Error(`${at}: unexpected text after a quoted field`);
    } else {
      const end = line.indexOf(',', i);
      field = (end < 0 ? line.slice(i) : line.slice(i, end)).trim();
      if (field.includes('"')) throw new Error(`${at}: a quote inside an unquoted field`);
      i = end < 0 ? line.length : end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/** Reads and parses `--token-auth-file`. */
export async function readTokenFile(path: string): Promise<TokenEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`--token-auth-file ${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseTokenFile(text, path);
}

/** The admin token in `<data-dir>/admin-token`: read it, or mint one (32 random bytes) on first start. */
export async function ensureAdminToken(dataDir: string): Promise<string> {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  const stored = (await readOptional(path))?.trim();
  if (stored !== undefined && stored !== '') {
    if (!TOKEN_SHAPE.test(stored)) throw new Error(`${path} does not hold a token; delete it to have a new one generated`);
    return stored;
  }
  const token = randomBytes(32).toString('base64url');
  await writePrivateFile(path, `${token}\n`);
  return token;
}

const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * The token of `Authorization: Bearer <token>`. No header, or a well-formed header of another
 * scheme (some other authenticator's): `undefined`. A malformed header, or several: Unauthorized.
 * The scheme and the token are separated by exactly one space, as upstream reads them:
 * `Bearer  <token>` (two spaces) carries an empty token, which is no bearer token at all
 * (`undefined`: the request goes on as anonymous, where that is enabled).
 */
export function bearerToken(headers: RequestHeaders): string | undefined {
  const header = headers['authorization'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string') throw rejected();
  const parts = header.trim().split(' ');
  const [scheme = '', token] = parts;
  if (scheme.toLowerCase() === 'bearer' && token === '') return undefined;
  if (scheme.toLowerCase() !== 'bearer') {
    // A lone word (or nothing) is no `<scheme> <credentials>` at all; a well-formed other scheme
    // may be some other authenticator's.
    if (parts.length < 2 || scheme === '') throw rejected();
    return undefined;
  }
  if (token === undefined || parts.length !== 2) throw rejected();
  return token;
}

/** Looks a token up among `tokens`: its user (with `system:authenticated`), or `undefined`. */
export function staticTokens(tokens: Iterable<TokenEntry>): (token: string) => UserInfo | undefined {
  // Comparing fixed-length digests, all of them every time, takes as long whatever the token
  // presented, so response times reveal nothing about how close a guess was.
  const known = [...tokens].map(({ token, user }) => ({ digest: digest(token), user: withAuthenticatedGroup(user) }));
  return (token) => {
    const presented = digest(token);
    let found: UserInfo | undefined;
    for (const entry of known) if (timingSafeEqual(presented, entry.digest)) found = entry.user;
    return found;
  };
}

/**
 * Resolves `Authorization: Bearer <token>` against `tokens` alone. No header: `undefined` (the
 * app decides; it answers 401 except on health checks). A header of another scheme: `undefined`
 * too, so that other authenticators can be chained. An unknown token or a malformed header:
 * Unauthorized. (The server chains it with the other methods: see `unionAuthenticator`.)
 */
export function tokenAuthenticator(tokens: Iterable<TokenEntry>): Authenticator {
  const lookup = staticTokens(tokens);
  return (headers: RequestHeaders) => {
    const token = bearerToken(headers);
    if (token === undefined) return undefined;
    const found = lookup(token);
    if (!found) throw rejected();
    return found;
  };
}
