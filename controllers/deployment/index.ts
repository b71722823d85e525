// Public surface of controllers/deployment: the Deployment controller and the rules it shares with tests and tools.
export { deploymentController } from './deployment-controller.js';
export type { DeploymentControllerOptions } from './deployment-controller.js';
export { maxSurge, maxUnavailable, resolveFenceposts, scaledValue } from './fenceposts.js';
export { ANNOTATION as DEPLOYMENT_ANNOTATIONS, POD_TEMPLATE_HASH, podTemplateHash, revisionOf } from './revisions.js';
export { REASON as DEPLOYMENT_REASONS } from './deployment-status.js';
