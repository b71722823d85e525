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
// Certificate requests and the cluster's signers (csrsigning, csrapproving, the node agent's TLS bootstrap).
export { CertificateRequestError, createCertificateRequest, parseCertificateRequest } from './certificate-requests.js';
export type { CertificateRequestInfo } from './certificate-requests.js';
export {
  allowedUsages,
  APISERVER_CLIENT_SIGNER,
  builtinSigner,
  isReservedSignerName,
  KNOWN_USAGES,
  LEGACY_UNKNOWN_SIGNER,
  NODE_CLIENT_SIGNER,
  NODE_SERVING_SIGNER,
  NODE_USER_PREFIX,
  NODES_GROUP,
  SIGNER_NAMES,
  signerProblem,
} from './signers.js';
export type { SignerName } from './signers.js';
export { certificateValidity, loadSigningCa, signCertificateRequest } from './signing-ca.js';
export type { SigningCa } from './signing-ca.js';
export { csrState, issuedCertificate, trueCondition } from './csr-status.js';
export type { CsrState } from './csr-status.js';
