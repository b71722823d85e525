/**
 * The labels svc's node agent puts on the sandboxes and containers it creates. They are how
 * every part of the agent (pod workers, garbage collection, logs, exec and port-forward) finds a
 * pod's runtime objects through the CRI, and how a restarted agent adopts them; objects without
 * them are not the agent's.
 */
export const POD_NAME_LABEL = 'svc.io/pod.name';
export const POD_NAMESPACE_LABEL = 'svc.io/pod.namespace';
export const POD_UID_LABEL = 'svc.io/pod.uid';
/** On containers only. */
export const CONTAINER_NAME_LABEL = 'svc.io/container.name';
