// Public surface of controllers/service: the service load-balancer loop (docs/controller-manager.md#service-lb-controller).
export { NO_LOAD_BALANCER_REASON, serviceLbController } from './service-lb-controller.js';
export type { ServiceLbControllerOptions } from './service-lb-controller.js';
