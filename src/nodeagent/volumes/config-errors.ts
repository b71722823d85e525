import { StatusError } from '../../api/index.js';

/**
 * The failures of a container's config and a pod's volumes, worded as the kubelet words them so
 * that `kubectl describe pod` reads the same: the reason becomes the container's waiting reason
 * (`CreateContainerConfigError`) or the pod's event (`FailedMount`).
 */

export type SourceKind = 'ConfigMap' | 'Secret';

/** `configmap "x" not found`: the kubelet's object cache names the resource in the singular. */
export function sourceNotFound(kind: SourceKind, name: string): StatusError {
  return configError(`${kind.toLowerCase()} ${JSON.stringify(name)} not found`);
}

/** `couldn't find key k in ConfigMap ns/x`. */
export function keyNotFound(kind: SourceKind, namespace: string, name: string, key: string): StatusError {
  return configError(`couldn't find key ${key} in ${kind} ${namespace}/${name}`);
}

export function configError(message: string): StatusError {
  return new StatusError({ reason: 'CreateContainerConfigError', message });
}

/** `MountVolume.SetUp failed for volume "v" : <why>`, the FailedMount event's text. */
export function mountFailed(volume: string, why: string, cause?: unknown): StatusError {
  return new StatusError({
    reason: 'FailedMount',
    message: `MountVolume.SetUp failed for volume ${JSON.stringify(volume)} : ${why}`,
    ...(cause !== undefined ? { cause } : {}),
  });
}
