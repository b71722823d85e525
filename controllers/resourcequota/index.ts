export { resourceQuotaController, type ResourceQuotaControllerOptions } from './resource-quota-controller.js';
