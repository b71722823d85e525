import { of, type Observable } from 'rxjs';
import {
  DEFAULT_STORAGE_CLASS_ANNOTATION,
  HOST_PATH_PROVISIONER,
  HOST_PATH_STORAGE_CLASS,
  isDefaultStorageClass,
  isStatusError,
  type StorageClass,
} from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

/** The class `svc up` ships: default, host-path, bound where the first pod goes, deleted with its claim, expandable. */
export function hostPathStorageClass(isDefault: boolean): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: HOST_PATH_STORAGE_CLASS, ...(isDefault ? { annotations: { [DEFAULT_STORAGE_CLASS_ANNOTATION]: 'true' } } : {}) },
    provisioner: HOST_PATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  };
}

const NAME = 'host-path-storage-class';

/**
 * Keeps the host-path StorageClass (`local-path`) in the cluster, as k3s keeps its manifest: made
 * when missing, made again when deleted. It is made default only when no other class is (a
 * cluster that chose another default keeps it). Runs beside the binder when
 * `--enable-hostpath-provisioner` is on.
 */
export function hostPathClassKeeper(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  const classes = ctx.informers.informer(builtin.storageClasses);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    // Every class event looks again (a deleted default lets this one become default next time);
    // the first key comes once the cache is filled, for a cluster with no class at all.
    for: classes,
    watches: [of(HOST_PATH_STORAGE_CLASS)],
    reconcile: async () => {
      if (classes.store.get(HOST_PATH_STORAGE_CLASS)) return;
      const otherDefault = classes.store.list().some((c) => isDefaultStorageClass(c.metadata.annotations));
      try {
        await ctx.client.create(builtin.storageClasses, hostPathStorageClass(!otherDefault));
      } catch (error) {
        if (!(isStatusError(error) && error.code === 409)) throw error;
      }
    },
  });
}
