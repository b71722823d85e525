import type { CustomResourceDefinition, KubeObject, WriteStrategy } from '../../api/index.js';
import { validateCustomResourceDefinition } from './crd-validation.js';

/** The finalizer that holds a deleted CRD until its objects are gone (upstream: customresourcecleanup.apiextensions.k8s.io). */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.svc.io';

/** Kubernetes' defaults of a CRD: singular and listKind from kind, conversion None. */
function withDefaults(object: KubeObject): KubeObject {
  const crd = object as CustomResourceDefinition;
  const names = crd.spec.names;
  return {
    ...crd,
    spec: {
      ...crd.spec,
      names: { ...names, singular: names.singular || names.kind.toLowerCase(), listKind: names.listKind || `${names.kind}List` },
      conversion: crd.spec.conversion ?? { strategy: 'None' },
    },
  };
}

/**
 * The write strategy of CustomResourceDefinition: defaults, the cleanup finalizer on create (a
 * client's status is dropped there), and the CRD rules as 422 causes.
 */
export const crdStrategy: WriteStrategy = {
  prepareForCreate(object) {
    const { status: _ignored, ...rest } = withDefaults(object);
    const finalizers = object.metadata.finalizers ?? [];
    return { ...rest, metadata: { ...object.metadata, finalizers: finalizers.includes(CLEANUP_FINALIZER) ? finalizers : [...finalizers, CLEANUP_FINALIZER] } } as KubeObject;
  },
  // Status on update: the endpoint decides (write-scope.ts): kept as stored through the object, written through `/status`.
  prepareForUpdate: (next) => withDefaults(next),
  validate: (object, old) => validateCustomResourceDefinition(object, old),
};
