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
 * The write strategy of CustomResourceDefinition: defaults, the cleanup finalizer on create, a
 * status that only the server writes (clients' status is dropped on create and ignored on update),
 * and the CRD rules as 422 causes.
 */
export const crdStrategy: WriteStrategy = {
  prepareForCreate(object) {
    const { status: _ignored, ...rest } = withDefaults(object);
    const finalizers = object.metadata.finalizers ?? [];
    return { ...rest, metadata: { ...object.metadata, finalizers: finalizers.includes(CLEANUP_FINALIZER) ? finalizers : [...finalizers, CLEANUP_FINALIZER] } } as KubeObject;
  },
  prepareForUpdate(next, current) {
    const { status: _ignored, ...rest } = withDefaults(next);
    return (current['status'] === undefined ? rest : { ...rest, status: current['status'] }) as KubeObject;
  },
  validate: (object, old) => validateCustomResourceDefinition(object, old),
};
