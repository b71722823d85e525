export { csrApprovingController, type CsrApprovingOptions } from './csr-approving-controller.js';
