// The node agent's pod volumes and container environments: what a container sees of its pod's
// ConfigMaps, Secrets, downward API and service-account tokens, and the host paths it mounts.

export { podObjectReader, type PodObjectReader } from './object-reader.js';
export { resolveEnv, resolveEnvReporting, type EnvContext } from './resolve-env.js';
export { expandVariables } from './expand.js';
