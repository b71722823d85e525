export { bootstrapSigner, detachedSignature, type BootstrapSignerOptions } from './bootstrap-signer.js';
