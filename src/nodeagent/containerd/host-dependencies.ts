import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where Debian's containernetworking-plugins puts the CNI plugins. */
export const DEFAULT_CNI_BIN_DIR = '/usr/lib/cni';

/** A program a node needs that this machine lacks, with the command that installs it. */
export interface MissingDependency {
  readonly name: string;
  readonly install: string;
}

const onPath = (name: string): boolean => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;

/**
 * What running pods on this machine needs and does not find: containerd (and its ctr, used for
 * image imports), runc and the CNI plugins. Empty when the node can run. The install commands
 * are Debian's, the distribution svc provisions (scripts/provision.mjs).
 */
export function missingNodeDependencies(cniBinDir: string = DEFAULT_CNI_BIN_DIR): MissingDependency[] {
  const missing: MissingDependency[] = [];
  if (!onPath('containerd')) missing.push({ name: 'containerd', install: 'apt-get install -y containerd' });
  else if (!onPath('ctr')) missing.push({ name: 'ctr', install: 'apt-get install -y containerd' });
  if (!onPath('runc')) missing.push({ name: 'runc', install: 'apt-get install -y runc' });
  for (const plugin of ['bridge', 'host-local', 'loopback', 'portmap']) {
    if (!existsSync(join(cniBinDir, plugin))) {
      missing.push({ name: `CNI plugin ${plugin} in ${cniBinDir}`, install: 'apt-get install -y containernetworking-plugins' });
      break;
    }
  }
  return missing;
}
