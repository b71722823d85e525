// Public surface of controllers/replicationcontroller: the ReplicationController controller.
export { replicationControllerController } from './replication-controller.js';
