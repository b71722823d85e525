// Public surface of controllers/service-endpoints: what the endpoints, endpointslice and
// endpointslice-mirroring loops share (docs/controller-manager.md#endpoints-controller).
export { endpointConditions, endpointHostname, familyOf, isPodTerminal, podIpOf, podIps, podReference, shouldPodBeInEndpoints } from './pod-endpoint.js';
export type { AddressFamily, PodReference } from './pod-endpoint.js';
export { resolveTargetPort } from './target-port.js';
export { hasPodSelector, podServiceTriggers, selectedPods, serviceSelects } from './service-selection.js';
export type { PodTriggerOptions } from './service-selection.js';
export { HEADLESS_LABEL, isHeadless, labelsFromService, serviceFamilies } from './service-families.js';
export { comparePorts, endpointKey, endpointText, planSlices, sliceGroupKey } from './slice-plan.js';
export type { SliceEndpoint, SlicePlan, SlicePort } from './slice-plan.js';
export { SliceTracker } from './slice-tracker.js';
export { applySlices } from './slice-writes.js';
export type { ApplySlicesInput, DesiredSliceGroup, SliceWrites } from './slice-writes.js';
