export { pvProtectionController } from './pv-protection.js';
