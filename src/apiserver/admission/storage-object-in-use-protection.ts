import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionPlugin } from './plugin.js';

/** The finalizer each protected core resource is created with. */
const FINALIZERS: Readonly<Record<string, string>> = {
  persistentvolumes: PV_PROTECTION_FINALIZER,
  persistentvolumeclaims: PVC_PROTECTION_FINALIZER,
};

/**
 * StorageObjectInUseProtection: a new PersistentVolume gets `kubernetes.io/pv-protection`, a new
 * PersistentVolumeClaim `kubernetes.io/pvc-protection`, as upstream's plugin does on create only.
 * The protection loops add a missing one too (objects created while the plugin was off), but
 * only after the create is seen; doing it here closes the moment in which a claim deleted right
 * after its create would go while a pod still uses it. Updates are left alone: the loops remove
 * the finalizers when the object is no longer in use, and admission must not put them back.
 */
export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    appliesTo: ({ operation, type, subresource }) => operation === 'CREATE' && subresource === '' && type.group === '' && FINALIZERS[type.resource] !== undefined,
    admit(attrs: AdmissionAttributes) {
      const object = attrs.object;
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || attrs.type.group !== '' || !object) return object;
      const finalizer = FINALIZERS[attrs.type.resource];
      if (!finalizer) return object;
      const finalizers = object.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return object;
      return { ...object, metadata: { ...object.metadata, finalizers: [...finalizers, finalizer] } } as ApiObject;
    },
  };
}
