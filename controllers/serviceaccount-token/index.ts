export { serviceAccountTokenController, type ServiceAccountTokenControllerOptions } from './service-account-token-controller.js';
