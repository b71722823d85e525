// Installs the external components the test suites run for real (and, with --node, what `svc up`'s
// node needs, for npm start): etcd (Debian's etcd-server), an image registry for the pull tests
// (docker-registry, and apache2-utils' htpasswd for its bcrypt users), the Kubernetes Python
// client (Debian's python3-kubernetes, a real client the e2e suite drives), Debian's chromium (the
// dashboard's browser tests drive it with playwright-core), and the node runtime —
// containerd, runc, the CNI plugins and a static busybox — then builds
// svc's local images from that busybox. Idempotent and quiet when everything is present. A
// suite whose component is missing fails; it never skips.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;

const installed = (pkg) =>
  spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout?.includes('install ok installed') ?? false;

function aptInstall(packages) {
  if (process.getuid?.() !== 0) {
    console.error(`provision: ${packages.join(' ')} missing and not root; install them with apt-get`);
    return false;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'inherit', env }).status === 0;
  // The package lists may be missing or stale on a fresh machine; refresh them only then.
  if (spawnSync('apt-get', ['install', '-y', '-qq', '--simulate', ...packages], { stdio: 'ignore', env }).status === 0 && install()) return true;
  if (spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env }).status !== 0) return false;
  return install();
}

/** What the node runtime suites need, each with how to tell it is there. */
const NODE_PACKAGES = [
  { pkg: 'containerd', present: () => has('containerd') && has('ctr') },
  { pkg: 'runc', present: () => has('runc') },
  { pkg: 'containernetworking-plugins', present: () => existsSync('/usr/lib/cni/bridge') },
  { pkg: 'busybox-static', present: () => installed('busybox-static') },
  // The bridge plugin's portmap and masquerade rules, and `ip` for the test helper.
  { pkg: 'iptables', present: () => has('iptables') },
  { pkg: 'iproute2', present: () => has('ip') },
  // The service proxy flushes UDP conntrack entries of removed endpoints (test/incluster).
  { pkg: 'conntrack', present: () => has('conntrack') },
];

function provisionEtcd() {
  if (has('etcd')) return;
  console.log('provision: installing etcd-server (Debian)');
  if (!aptInstall(['etcd-server']) || !has('etcd')) console.error('provision: etcd could not be installed; the etcd suites will fail');
}

/** The Kubernetes Python client, for Debian's python3 (test/e2e/python-client.test.ts runs /usr/bin/python3). */
function provisionPythonClient() {
  if (installed('python3-kubernetes')) return;
  console.log('provision: installing python3-kubernetes (Debian)');
  if (!aptInstall(['python3-kubernetes']) || !installed('python3-kubernetes')) {
    console.error('provision: python3-kubernetes could not be installed; the Python client suite will fail');
  }
}

/** The dashboard's browser tests (test/dashboard/dashboard-browser.test.ts): Debian's chromium, driven by playwright-core. */
function provisionChromium() {
  if (has('chromium')) return;
  console.log('provision: installing chromium (Debian)');
  if (!aptInstall(['chromium']) || !has('chromium')) console.error('provision: chromium could not be installed; the dashboard browser suite will fail');
}

/** The registry suites' real registry: Debian's docker-registry, htpasswd (bcrypt) from apache2-utils. */
const REGISTRY_PACKAGES = [
  { pkg: 'docker-registry', present: () => has('docker-registry') },
  { pkg: 'apache2-utils', present: () => has('htpasswd') },
];

function provisionRegistry() {
  const missing = REGISTRY_PACKAGES.filter((p) => !p.present());
  if (missing.length === 0) return;
  const names = missing.map((p) => p.pkg);
  console.log(`provision: installing ${names.join(' ')} (Debian)`);
  if (!aptInstall(names) || missing.some((p) => !p.present())) console.error('provision: the registry could not be installed; the registry suites will fail');
}

function provisionNodeRuntime() {
  const missing = NODE_PACKAGES.filter((p) => !p.present());
  if (missing.length === 0) return;
  const names = missing.map((p) => p.pkg);
  console.log(`provision: installing ${names.join(' ')} (Debian)`);
  if (!aptInstall(names) || missing.some((p) => !p.present())) {
    console.error('provision: the node runtime could not be installed; the containerd suites will fail');
  }
}

function buildImages() {
  const built = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/build-images.ts'), '--quiet'], { stdio: 'inherit', cwd: root });
  if (built.status !== 0) console.error('provision: svc images could not be built; the containerd suites will fail');
}

/** `node`: only what `svc up`'s node needs (npm start); else everything the suites need too (etcd, the registry, the Python client). */
export function provision({ node = false } = {}) {
  if (!node) {
    provisionEtcd();
    provisionRegistry();
    provisionPythonClient();
    provisionChromium();
  }
  provisionNodeRuntime();
  buildImages();
}

if (import.meta.url === `file://${process.argv[1]}`) provision({ node: process.argv.includes('--node') });
