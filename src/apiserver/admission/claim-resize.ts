import { forbidden, invalid, quantityValue } from '../../api/index.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionPlugin } from './plugin.js';

type ClaimSpec = { storageClassName?: string; volumeName?: string; resources?: { requests?: { storage?: unknown } } };

const requested = (object: { [key: string]: unknown } | undefined): number | undefined => quantityValue(((object?.['spec'] ?? {}) as ClaimSpec).resources?.requests?.storage);

/**
 * PersistentVolumeClaimResize: a claim's storage request may grow only when the claim is bound and
 * its class allows expansion (403, upstream's message); it never shrinks (422 on the field).
 */
export function claimResize(env: AdmissionEnv): AdmissionPlugin {
  const classType = env.registry.lookup('storage.svc.io', 'v1', 'storageclasses')!;
  return {
    name: 'PersistentVolumeClaimResize',
    appliesTo: ({ operation, type, subresource }) => operation === 'UPDATE' && subresource === '' && type.group === '' && type.resource === 'persistentvolumeclaims',
    async validate(attrs: AdmissionAttributes) {
      if (attrs.operation !== 'UPDATE' || attrs.subresource !== '' || attrs.type.group !== '' || attrs.type.resource !== 'persistentvolumeclaims') return;
      const before = requested(attrs.oldObject);
      const after = requested(attrs.object);
      if (before === undefined || after === undefined || after === before) return;
      if (after < before) {
        throw invalid('PersistentVolumeClaim', attrs.name, [{ field: 'spec.resources.requests.storage', reason: 'FieldValueForbidden', message: 'Forbidden: field can not be less than previous value' }]);
      }
      const spec = (attrs.oldObject?.['spec'] ?? {}) as ClaimSpec;
      const className = spec.storageClassName ?? '';
      const storageClass = className === '' ? undefined : (env.objects.get(classType, undefined, className) ?? (await env.reader.get(classType, undefined, className)));
      if (!spec.volumeName || !storageClass || storageClass['allowVolumeExpansion'] !== true) {
        throw forbidden(
          { group: '', resource: 'persistentvolumeclaims' },
          attrs.name,
          'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        );
      }
    },
  };
}
