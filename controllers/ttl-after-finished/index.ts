// Public surface of controllers/ttl-after-finished: deletes finished Jobs after their TTL (docs/controller-manager.md).
export { ttlAfterFinishedController } from './ttl-after-finished.js';
export type { TtlAfterFinishedOptions } from './ttl-after-finished.js';
