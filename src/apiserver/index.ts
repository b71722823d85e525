export { buildApp } from './app.js';
export type { ApiServerOptions } from './app.js';
export type { Authenticator, RequestHeaders, UserInfo } from './authn/user.js';
export { parseRequestPath } from './request-info.js';
export type { RequestInfo } from './request-info.js';
