// Pod sources: the API server, manifest files and a manifest URL, merged into one stream of pod updates.
export { apiSource, nodePodsInformer } from './api-source.js';
export { fileSource } from './file-source.js';
export type { FileSourceOptions } from './file-source.js';
export { firstOfEachName, parseManifests } from './manifests.js';
export type { ParsedManifests } from './manifests.js';
export { mergePodSources } from './merge-sources.js';
export { configuredSources, podSources } from './pod-sources.js';
export type { PodSourcesOptions } from './pod-sources.js';
export { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION, isMirrorPod, isStaticPod, podFullName } from './pod-update.js';
export type { ManifestProblem, PodSourceName, PodUpdate, SourceEvent } from './pod-update.js';
export { SourcesReadiness } from './sources-ready.js';
export { canonicalJson, staticPodHash, toStaticPod } from './static-pod.js';
export type { StaticPodOrigin, StaticPodResult } from './static-pod.js';
export { headerList, urlSource } from './url-source.js';
export type { UrlSourceOptions } from './url-source.js';
