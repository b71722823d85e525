import type { Observable } from 'rxjs';
import type { ReplicationController } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import type { ControllerResult } from '../controller.js';
import { replicatedController, type ReplicaSetControllerOptions, type ReplicatedKind } from '../replicaset/index.js';

// A ReplicationController is a ReplicaSet with an equality-map selector (upstream runs its
// ReplicationManager on the ReplicaSet controller through a conversion; here through this adapter).
const replicationControllerKind: ReplicatedKind<ReplicationController> = {
  name: 'replicationcontroller-controller',
  resource: { ...builtin.replicationControllers, kind: 'ReplicationController' },
  type: { group: '', version: 'v1', kind: 'ReplicationController' },
  selector: (rc) => (rc.spec?.selector ? { matchLabels: rc.spec.selector } : undefined),
  replicas: (rc) => rc.spec?.replicas ?? 1,
  minReadySeconds: (rc) => rc.spec?.minReadySeconds ?? 0,
  template: (rc) => rc.spec?.template,
  status: (rc) => rc.status,
  withStatus: (rc, status) => ({ ...rc, status: status as ReplicationController['status'] }),
};

/**
 * The ReplicationController controller (`replicationcontroller-controller`): the ReplicaSet
 * controller's behaviour for the core kind (docs/controller-manager.md#replicationcontroller-controller).
 */
export function replicationControllerController(ctx: ControllerContext, options: ReplicaSetControllerOptions = {}): Observable<ControllerResult<unknown>> {
  return replicatedController(ctx, replicationControllerKind, options);
}
