/** The node agent's images: pulls for containers, image import, image and dead-container garbage collection, the Node's image list. */
export { ImageManager, LOCAL_REGISTRY, type EnsuredImage, type ImageEventSink, type ImageManagerOptions } from './image-manager.js';
export { DEFAULT_REGISTRY, parseImageName, type ImageName } from './image-name.js';
export { rewriteImage } from './image-rewrite.js';
export { ImagePuller, type ImagePullerOptions } from './image-puller.js';
export { IMAGE_PULL_BACKOFF_INITIAL_MS, IMAGE_PULL_BACKOFF_MAX_MS, PullBackOff, type PullBackOffOptions } from './pull-backoff.js';
export { effectivePullPolicy, type PullPolicy } from './pull-policy.js';
export { DOCKER_CFG_TYPE, DOCKER_CONFIG_JSON_TYPE, credentialsForEntries, credentialsForImage, dockerConfigEntries, registryKeyMatches, type DockerConfigEntry } from './pull-secrets.js';
export { imageArchiveKind, type ImageArchiveKind } from './archive-kind.js';
export {
  IMAGES_DIR_NAME,
  checkImageArchive,
  criSnapshotter,
  importAgentImages,
  importImageArchives,
  importImageDirectory,
  type ArchiveImportResult,
  type ImageArchiveImportOptions,
} from './image-archives.js';
export {
  DEFAULT_IMAGE_GC_POLICY,
  ImageGarbageCollector,
  selectImagesToFree,
  validateImageGcPolicy,
  type ImageFilesystemUsage,
  type ImageGarbageCollectorOptions,
  type ImageGcPolicy,
  type ImageGcResult,
  type ImageRecord,
} from './image-gc.js';
export {
  ContainerGarbageCollector,
  DEFAULT_CONTAINER_GC_POLICY,
  type ContainerGarbageCollectorOptions,
  type ContainerGcPolicy,
  type ContainerGcResult,
} from './container-gc.js';
export { CONTAINER_GC_PERIOD_MS, IMAGE_GC_PERIOD_MS, startGarbageCollection, type GarbageCollectionOptions } from './garbage-collection.js';
export { MAX_NAMES_PER_IMAGE, NODE_IMAGES_CACHE_MS, nodeImagesReader, nodeStatusImages, type NodeImage, type NodeImagesOptions } from './node-images.js';
export {
  CREDENTIAL_PROVIDER_API_VERSIONS,
  CREDENTIAL_PROVIDER_CONFIG_KIND,
  CREDENTIAL_PROVIDER_CONFIG_VERSIONS,
  goDurationMs,
  parseCredentialProviderConfig,
  readCredentialProviderConfig,
  type CredentialProvider,
  type CredentialProviderSpec,
} from './credential-provider-config.js';
export {
  CREDENTIAL_PLUGIN_TIMEOUT_MS,
  CREDENTIAL_PROVIDER_REQUEST_KIND,
  CREDENTIAL_PROVIDER_RESPONSE_KIND,
  CredentialProviders,
  requestImage,
  type CredentialProvidersOptions,
} from './credential-providers.js';
