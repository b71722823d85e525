/** The node agent's container runtime layer: the CRI client, local images, runtime configuration. */
export { CriClient, grpcTarget, type CallOptions, type CriCallRecord, type CriClientOptions } from './client.js';
export type { CriService, CriTransport, CriUnaryCall } from './transport.js';
export { GrpcTransport, MAX_CRI_MESSAGE_BYTES } from './grpc-transport.js';
export { CRI_PROTO } from './api-proto.js';
export { decodeMessage, encodeMessage, messageType, serviceMethods, shapeMessage } from './wire.js';
export { CriError, GrpcStatus, isCriError } from './cri-error.js';
export type * from './types.js';
export { importImageArchive, type ImportImageOptions } from './image-import.js';
export {
  BUSYBOX_IMAGE,
  DEFAULT_BUSYBOX_BINARY,
  PAUSE_IMAGE,
  buildLocalImages,
  busyboxImage,
  defaultImageCacheDir,
  isDynamicallyLinked,
  pauseImage,
  type LocalImageArchive,
  type LocalImages,
} from './local-images.js';
export { buildOciArchive, ociArchitecture, type BuiltImage, type ImageConfig, type ImageDefinition, type OciArchiveOptions } from './oci-archive.js';
export { writeTar, type TarEntry } from './ustar.js';
export { bridgeConflist, parseIpv4Cidr, type BridgeNetworkOptions, type CniConflist } from './cni-config.js';
export { applyPodCidrToBridge, BRIDGE_CONFLIST, bridgeConflistPath } from './pod-cidr-bridge.js';
export { containerdConfig, type ContainerdConfigOptions } from './containerd-config.js';
export { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from './runtime-labels.js';
export {
  endpointUrl,
  isLoopbackHost,
  parseRegistryConfig,
  readRegistryConfig,
  registryConfigSchema,
  validateRegistryConfig,
  type RegistryConfig,
  type RegistryHostConfig,
} from './registry-config.js';
export { defaultEndpoint, registryAuths, registryHostsFiles, writeRegistryHosts } from './registry-hosts.js';
