// Public surface of controllers/endpointslice-mirroring: the mirroring loop (docs/controller-manager.md#endpointslice-mirroring-controller).
export { endpointSliceMirroringController, managedByMirroringController } from './endpointslice-mirroring-controller.js';
export type { EndpointSliceMirroringControllerOptions } from './endpointslice-mirroring-controller.js';
export { mirroredGroups } from './mirrored-endpoints.js';
