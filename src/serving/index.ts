// Public surface of src/serving/: a daemon's secure port — health, readiness and liveness checks,
// Prometheus metrics, profiling — with delegated authentication and authorization
// (docs/controller-manager.md#the-secure-port). The controller runtime serves through it.
export { runChecks } from './health.js';
export type { HealthAnswer, HealthCheck } from './health.js';
export { ANONYMOUS, parseCertificates, RequestAuth } from './request-auth.js';
export type { AuthInput, RequestAuthOptions } from './request-auth.js';
export { AccessReviewer, SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, TokenReviewer } from './reviews.js';
export type { AccessAnswer, AccessAttributes, RequestUser } from './reviews.js';
export { TtlCache } from './ttl-cache.js';
export { startServing } from './serving.js';
export type { Serving, ServingOptions, ServingTls } from './serving.js';
