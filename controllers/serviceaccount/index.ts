export { DEFAULT_SERVICE_ACCOUNT, serviceAccountController, type ServiceAccountControllerOptions } from './service-account-controller.js';
