// Public surface of controllers/ttl: the node TTL annotation by cluster size (docs/controller-manager.md).
export { NODE_TTL_ANNOTATION, ttlController } from './ttl-controller.js';
export { TTL_BOUNDARIES, ttlStep } from './ttl-boundaries.js';
