export { csrSigningController, type CsrSigningOptions } from './csr-signing-controller.js';
