// Installs the external components the test suites run for real (etcd from Debian's
// etcd-server package). A suite whose component is missing fails; it never skips.
import { spawnSync } from 'node:child_process';

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;

function aptInstall(packages) {
  if (process.getuid?.() !== 0) {
    console.error(`provision: ${packages.join(' ')} missing and not root; install them with apt-get`);
    return false;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  if (update.status !== 0) return false;
  const install = spawnSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  return install.status === 0;
}

export function provision() {
  if (!has('etcd')) {
    console.log('provision: installing etcd-server (Debian)');
    if (!aptInstall(['etcd-server']) || !has('etcd')) {
      console.error('provision: etcd could not be installed; the etcd suites will fail');
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) provision();
