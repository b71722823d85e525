// Public surface of src/pki/: the cluster's certificates and keys on disk — its CA, the API
// server's serving certificate, client certificates for every daemon (controller manager,
// scheduler, node agents), the front proxy's CA — and the atomic, owner-only writes of secrets.
export {
  ensureClientCertificate,
  ensureFrontProxyPki,
  ensurePki,
  ensureServingCertificateFiles,
  FRONT_PROXY_CLIENT,
  loadServingCertificate,
  servingNames,
} from './cluster-pki.js';
export type { ClientCertificateFiles, FrontProxyPki, ServingCertificate, ServingNames } from './cluster-pki.js';
export { readOptional, writePrivateFile, writePublicFile } from './state-files.js';
