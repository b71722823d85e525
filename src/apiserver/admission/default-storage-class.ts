import { isDefaultStorageClass } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionPlugin } from './plugin.js';

/**
 * DefaultStorageClass: a new PersistentVolumeClaim that names no class (`storageClassName`
 * absent; `""` means "no class" and is kept) gets the default StorageClass — the one annotated
 * `storageclass.kubernetes.io/is-default-class: "true"`; with several, the newest (then by name), as
 * upstream since 1.26. With none, the claim is left as it is.
 */
export function defaultStorageClass(env: AdmissionEnv): AdmissionPlugin {
  const classType = env.registry.lookup('storage.svc.io', 'v1', 'storageclasses')!;
  return {
    name: 'DefaultStorageClass',
    appliesTo: ({ operation, type, subresource }) => operation === 'CREATE' && subresource === '' && type.group === '' && type.resource === 'persistentvolumeclaims',
    admit(attrs: AdmissionAttributes) {
      const claim = attrs.object;
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || attrs.type.group !== '' || attrs.type.resource !== 'persistentvolumeclaims' || !claim) return claim;
      const spec = (claim['spec'] ?? {}) as Record<string, unknown>;
      if (spec['storageClassName'] !== undefined && spec['storageClassName'] !== null) return claim;
      const defaults = env.objects.list(classType).filter((c) => isDefaultStorageClass(c.metadata.annotations));
      if (defaults.length === 0) return claim;
      defaults.sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
      return { ...claim, spec: { ...spec, storageClassName: defaults[0]!.metadata.name } } as ApiObject;
    },
  };
}
