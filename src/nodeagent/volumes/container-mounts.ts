import { chmodSync, existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Container } from '../../api/index.js';
import type * as T from '../cri/types.js';
import { configError } from './config-errors.js';
import { expandVariables } from './expand.js';
import type { PreparedVolume } from './set-up-volume.js';

const PROPAGATION: Readonly<Record<string, T.MountPropagation>> = {
  None: 'PROPAGATION_PRIVATE',
  HostToContainer: 'PROPAGATION_HOST_TO_CONTAINER',
  Bidirectional: 'PROPAGATION_BIDIRECTIONAL',
};

/**
 * The CRI mounts of `container`'s volumeMounts, in order. ConfigMap, Secret, downwardAPI and
 * projected volumes are always read-only; others as the mount says. A `subPath` (or `subPathExpr`,
 * expanded with the container's env) mounts a path inside the volume: it must be relative without
 * `..`, is created as a directory (with the volume's mode) when missing, and must not lead out of
 * the volume through a symlink; the mount source is its resolved path. `Bidirectional`
 * propagation needs a privileged container. Failures are `CreateContainerConfigError`s, as the
 * kubelet reports them.
 */
export function containerMounts(
  container: Container,
  volumes: ReadonlyMap<string, PreparedVolume>,
  env: readonly { key: string; value: string }[] = [],
): T.Mount[] {
  const vars = new Map(env.map((e) => [e.key, e.value]));
  return (container.volumeMounts ?? []).map((mount) => {
    const volume = volumes.get(mount.name);
    if (!volume) throw configError(`cannot find volume ${JSON.stringify(mount.name)} to mount into container ${JSON.stringify(container.name)}`);
    const propagation = PROPAGATION[mount.mountPropagation ?? 'None'] ?? 'PROPAGATION_PRIVATE';
    if (propagation === 'PROPAGATION_BIDIRECTIONAL' && !isPrivileged(container)) {
      throw configError(`mountPropagation Bidirectional of volume ${JSON.stringify(mount.name)} needs a privileged container`);
    }
    const subPath = mount.subPathExpr ? expandVariables(mount.subPathExpr, (name) => vars.get(name)) : (mount.subPath ?? '');
    return {
      containerPath: mount.mountPath,
      hostPath: subPath ? subPathSource(volume.hostPath, subPath, mount.name, container.name, volume.unwritten === true) : volume.hostPath,
      readonly: volume.apiData || volume.readOnly === true || mount.readOnly === true,
      selinuxRelabel: false,
      propagation,
      uidMappings: [],
      gidMappings: [],
      recursiveReadOnly: false,
      image: null,
    };
  });
}

function subPathSource(volumePath: string, subPath: string, mountName: string, containerName: string, unwritten: boolean): string {
  if (isAbsolute(subPath)) throw configError(`error SubPath \`${subPath}\` must not be an absolute path`);
  if (subPath.split('/').includes('..')) throw configError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
  const target = join(volumePath, subPath);
  // A volume with nothing on the disk has no symlink to escape through: its subPath is named, not made.
  if (unwritten) return target;
  if (!existsSync(target)) {
    try {
      const mode = statSync(volumePath).mode & 0o7777;
      const first = mkdirSync(target, { recursive: true });
      // Each directory made gets the volume's mode, whatever the agent's umask.
      for (let dir = target; first !== undefined && dir.length >= first.length; dir = dirname(dir)) chmodSync(dir, mode);
    } catch {
      // The host's details stay out of the message, as in the kubelet.
      throw configError(`failed to create subPath directory for volumeMount ${JSON.stringify(mountName)} of container ${JSON.stringify(containerName)}`);
    }
  }
  const resolved = realpathSync(target);
  const root = realpathSync(volumePath);
  const inside = relative(root, resolved);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw configError(`subpath ${JSON.stringify(resolved)} not within volume path ${JSON.stringify(root)}`);
  }
  return resolved;
}

function isPrivileged(container: Container): boolean {
  const context = container.securityContext as { privileged?: unknown } | undefined;
  return context?.privileged === true;
}
