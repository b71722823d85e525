export { pvcProtectionController } from './pvc-protection.js';
