// Public surface of controllers/disruption: the disruption controller (docs/controller-manager.md#disruption-controller).
export { disruptionController } from './disruption-controller.js';
export type { DisruptionControllerOptions } from './disruption-controller.js';
