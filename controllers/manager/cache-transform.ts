import type { KubeObject } from '../../src/api/index.js';
import { stripManagedFields } from '../../src/client/index.js';

/**
 * The transform of every informer the manager makes: objects are cached without
 * `metadata.managedFields`, which no loop reads — for a pod, a create's entry and the node
 * agent's status entry, a large share of its bytes, held for every pod. Leases are cached as they
 * come: at 5,000 nodes ~500 renewals a second would each pay a copy of their bytes to save some
 * 150 bytes a Lease, and the idle control plane's CPU is what Leases cost.
 */
export function cacheTransform<T extends KubeObject>(object: T): T {
  return object.kind === 'Lease' ? object : stripManagedFields(object);
}
