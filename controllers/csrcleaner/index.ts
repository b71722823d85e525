export { CSR_CLEANER_AGES, csrCleanerController, csrDeletableAt, type CsrCleanerOptions } from './csr-cleaner-controller.js';
