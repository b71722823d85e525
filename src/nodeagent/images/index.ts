/** The node agent's images: pulls for containers, image import, image and dead-container garbage collection. */
export { ImageManager, LOCAL_REGISTRY, type EnsuredImage, type ImageEventSink, type ImageManagerOptions } from './image-manager.js';
export { DEFAULT_REGISTRY, parseImageName, type ImageName } from './image-name.js';
export { ImagePuller, type ImagePullerOptions } from './image-puller.js';
export { IMAGE_PULL_BACKOFF_INITIAL_MS, IMAGE_PULL_BACKOFF_MAX_MS, PullBackOff, type PullBackOffOptions } from './pull-backoff.js';
export { effectivePullPolicy, type PullPolicy } from './pull-policy.js';
export { DOCKER_CFG_TYPE, DOCKER_CONFIG_JSON_TYPE, credentialsForImage, dockerConfigEntries } from './pull-secrets.js';
