// The node agent's pod volumes and container environments: what a container sees of its pod's
// ConfigMaps, Secrets, downward API and service-account tokens, and the host paths it mounts.

export { podObjectReader, type PodObjectReader } from './object-reader.js';
export { cachingObjectReader } from './cached-object-reader.js';
export { resolveEnv, resolveEnvReporting, type EnvContext } from './resolve-env.js';
export { expandVariables } from './expand.js';
export { forgetPodPayloads, setUpPodVolumes, tearDownPodVolumes, type PodVolumes, type PodVolumesContext } from './pod-volumes.js';
export { writeAtomically, type FileProjection, type Payload } from './atomic-writer.js';
export { VOLUME_PLUGINS, podDirOf, volumeDirOf, type VolumePlugin } from './paths.js';
export { shareRootDir } from './root-dir.js';
