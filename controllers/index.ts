// Public surface of controllers/: the controller builder (the controller manager's loops arrive with its issue).
export { controller } from './controller.js';
export type { ControllerOptions, ControllerResult, OwnedSource } from './controller.js';
export type { ControllerContext, ControllerDefaults, ControlLoop } from './context.js';
