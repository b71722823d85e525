// The node agent's certificates from the cluster: TLS bootstrap with a bootstrap credential,
// client and serving certificate rotation through CertificateSigningRequests (docs/node-agent.md#tls-bootstrap-and-certificate-rotation).
export { CertificateRequestRefused, requestCertificate, type CertificateAsk, type IssuedPair } from './request-certificate.js';
export { credentialPaths, readCredentials, writeCredentials, type CredentialKind } from './credential-files.js';
export { CertificateRotator, rotationDeadline, type CertificateRotatorOptions } from './certificate-rotator.js';
export { bootstrapClientCredentials, type TlsBootstrapOptions } from './tls-bootstrap.js';
export { loadPki } from './lazy-pki.js';
