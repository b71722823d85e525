// Public surface of controllers/manager/: the controller manager daemon (docs/controller-manager.md),
// a user of the controller runtime (controllers/runtime/) and of the daemon port (src/serving/).
export { CONTROLLER_NAMES, CONTROLLERS, DISABLED_BY_DEFAULT, canonicalControllerName, invalidControllerItems, invalidControllerSelection, invalidModuleControllerName, selectControllers } from './controller-names.js';
export { CONTROLLER_MODULE_EXPORT, loadControllerModule, loadControllerModules } from './controller-modules.js';
export type { ControllerName } from './controller-names.js';
export { builtinLoops } from './loop-registry.js';
export type { LoopFactory, LoopRegistry, LoopSettings } from './loop-registry.js';
export { startControllerManager } from './manager.js';
export type { ControllerManagerOptions, RunningControllerManager } from './manager.js';
// Re-exported so the manager's callers (its command, its tests) keep one import.
export { runLeadership, silentLog, ManagerMetrics, startTerm } from '../runtime/index.js';
export type { ElectionSettings, Leadership, LeadershipOptions, ManagerLog, MetricsOptions, Term, TermOptions } from '../runtime/index.js';
export { ANONYMOUS, AccessReviewer, parseCertificates, RequestAuth, runChecks, startServing, SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH, TokenReviewer } from '../../src/serving/index.js';
export type { AuthInput, HealthAnswer, HealthCheck, RequestAuthOptions, RequestUser, Serving, ServingOptions, ServingTls } from '../../src/serving/index.js';
