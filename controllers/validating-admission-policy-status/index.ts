export { validatingAdmissionPolicyStatusController, validatingAdmissionPolicies } from './validating-admission-policy-status-controller.js';
export { matchedKinds, paramsSchema } from './matched-kinds.js';
