import { join } from 'node:path';

/**
 * Where a pod's volumes live on the node, after the kubelet's layout with svc's plugin names:
 * `<rootDir>/pods/<uid>/volumes/svc.io~<plugin>/<volume name>`. hostPath volumes have no
 * directory of their own: the container mounts the host path itself.
 */

export const VOLUME_PLUGINS = {
  emptyDir: 'svc.io~empty-dir',
  configMap: 'svc.io~configmap',
  secret: 'svc.io~secret',
  downwardAPI: 'svc.io~downward-api',
  projected: 'svc.io~projected',
} as const;

export type VolumePlugin = keyof typeof VOLUME_PLUGINS;

export const podDirOf = (rootDir: string, podUid: string) => join(rootDir, 'pods', podUid);

export const volumeDirOf = (podDir: string, plugin: VolumePlugin, volumeName: string) =>
  join(podDir, 'volumes', VOLUME_PLUGINS[plugin], volumeName);
