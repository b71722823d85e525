import { join } from 'node:path';

/**
 * Where `svc up` keeps the node's parts under its data dir. One place, because `svc up` creates
 * them and other commands (`svc image import`) find a running cluster through them.
 */

/** The gRPC socket of the containerd `svc up` starts. */
export function containerdSocketPath(dataDir: string): string {
  return join(dataDir, 'containerd', 'containerd.sock');
}

/** The node agent's `--root-dir`: pod volumes, logs, and `images/` imported at every start. */
export function agentRootDir(dataDir: string): string {
  return join(dataDir, 'agent');
}

/** The registries.yaml `svc up` reads when `--registry-config` is not given and the file exists. */
export function defaultRegistryConfigPath(dataDir: string): string {
  return join(dataDir, 'registries.yaml');
}
