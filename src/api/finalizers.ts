/**
 * The finalizers Kubernetes itself puts on objects, written by the API server and removed by the
 * controllers that finish the work ([garbage-collector.md](../../docs/garbage-collector.md),
 * [namespace-controller.md](../../docs/namespace-controller.md)).
 */

/** On a Namespace's `spec.finalizers` from creation; the namespace controller removes it once the namespace is empty. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** `propagationPolicy: Foreground`: the owner stays until the garbage collector has deleted its blocking dependents. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** `propagationPolicy: Orphan`: the garbage collector removes the owner references to it, then the finalizer. */
export const ORPHAN_FINALIZER = 'orphan';
