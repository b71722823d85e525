export { CustomResourceDefinitions } from './crd-controller.js';
export { serveCustomResourceDefinitions } from './serve-crds.js';
export { CLEANUP_FINALIZER, crdStrategy } from './crd-strategy.js';
export { customResourceTypes, versionPriority } from './custom-types.js';
export { customResourceZod } from './schema-to-zod.js';
export { validateStructuralSchema, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH } from './structural-schema.js';
export { validateCustomResourceDefinition } from './crd-validation.js';
