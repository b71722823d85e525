// Public surface of controllers/endpointslice: the endpointslice loop (docs/controller-manager.md#endpointslice-controller).
export { endpointSliceController, managedByEndpointSliceController } from './endpointslice-controller.js';
export type { EndpointSliceControllerOptions, SyncReport } from './endpointslice-controller.js';
export { desiredGroups, EndpointCache, ZONE_LABEL } from './desired-endpoints.js';
export { conditionsAtWrite } from './conditions-at-write.js';
