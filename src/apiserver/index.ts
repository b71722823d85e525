export { buildApp } from './app.js';
export type { ApiServerOptions } from './app.js';
export type { Authenticator, RequestHeaders, UserInfo } from './authn/user.js';
export { parseRequestPath } from './request-info.js';
export type { RequestInfo } from './request-info.js';
export { ensurePki, loadServingCertificate, servingNames } from './pki.js';
export type { ServingCertificate, ServingNames } from './pki.js';
export { SVC_VERSION } from './svc-version.js';
