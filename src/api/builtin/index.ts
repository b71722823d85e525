import { ResourceRegistry } from '../registry.js';
import type { ResourceType } from '../resource-type.js';
import { coreTypes } from './core.js';
import { admissionregistrationTypes, certificatesTypes, coordinationTypes, discoveryTypes, eventsTypes, rbacTypes, storageTypes } from './svc-groups.js';
import { reviewTypes } from './review-groups.js';
import { apiregistrationTypes } from './apiregistration.js';
import { metricsTypes } from './metrics.js';
import { appsTypes, autoscalingTypes, batchTypes, policyTypes } from './workloads.js';

/** Every built-in type, groups in the order Kubernetes' discovery lists them. */
export const builtinTypes: readonly ResourceType[] = Object.freeze([
  ...coreTypes,
  ...appsTypes,
  ...eventsTypes,
  ...reviewTypes,
  ...autoscalingTypes,
  ...batchTypes,
  ...certificatesTypes,
  ...policyTypes,
  ...rbacTypes,
  ...storageTypes,
  ...admissionregistrationTypes,
  ...coordinationTypes,
  ...discoveryTypes,
  ...apiregistrationTypes,
  ...metricsTypes,
]);

/** A registry of the built-in types; each call builds a fresh one (they share the frozen types). */
export function builtinRegistry(): ResourceRegistry {
  return new ResourceRegistry(builtinTypes);
}
