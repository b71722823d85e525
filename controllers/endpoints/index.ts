// Public surface of controllers/endpoints: the endpoints loop (docs/controller-manager.md#endpoints-controller).
export { endpointsController } from './endpoints-controller.js';
export type { EndpointsControllerOptions } from './endpoints-controller.js';
export { desiredSubsets, MAX_ENDPOINT_ADDRESSES, OVER_CAPACITY_ANNOTATION, OVER_CAPACITY_TRUNCATED, truncateSubsets } from './endpoint-subsets.js';
