/** The node agent's probes (startup, liveness, readiness) and lifecycle hooks (postStart, preStop). */
export { ProbeManager, type ProbeAttempt, type ProbeManagerOptions, type ProbeResult } from './probe-manager.js';
export { runLifecycleHandler, type LifecycleHandlerOptions, type LifecycleHook } from './lifecycle-handler.js';
export { runProbe, type RunProbeOptions } from './run-probe.js';
export { probeSettings, type ProbeKind, type ProbeSettings } from './probe-settings.js';
export { ProbeThreshold } from './probe-threshold.js';
export type { ActionOutcome, ProbeTarget } from './target.js';
export { PROBE_USER_AGENT, MAX_BODY_BYTES, MAX_REDIRECTS, httpGetRequest } from './http-get-action.js';
export { resolvePort } from './port.js';
export {
  containerLifecycle,
  parseProbeAction,
  lifecycleHandlerSchema,
  lifecycleSchema,
  probeActionSchema,
  type ExecAction,
  type GrpcAction,
  type HttpGetAction,
  type Lifecycle,
  type LifecycleHandler,
  type Probe,
  type ProbeAction,
  type SleepAction,
  type TcpSocketAction,
} from './actions.js';
