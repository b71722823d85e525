export type { Authenticator, RequestHeaders, UserInfo } from './user.js';
export { ADMIN_USER, ensureAdminToken, parseTokenFile, readTokenFile, tokenAuthenticator } from './tokens.js';
export type { TokenEntry } from './tokens.js';
