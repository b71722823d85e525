import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The kernel tunables a node agent sets at start (src/nodeagent/node/kernel-tunables.ts; the
// names as in KERNEL_TUNABLES, which this file must not import: global setup runs before suites).
const TUNABLES = ['vm.overcommit_memory', 'vm.panic_on_oom', 'kernel.panic', 'kernel.panic_on_oops', 'kernel.keys.root_maxkeys', 'kernel.keys.root_maxbytes'];

/**
 * Runs once before every suite. Every node agent a suite starts (in process, the bin, `svc up`)
 * reads and writes its kernel tunables in a copy of the host's values instead of /proc/sys
 * (SVC_NODEAGENT_SYSCTL_ROOT, inherited by the workers and their children): no test changes this
 * host's kernel.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'svc-sysctl-'));
  for (const name of TUNABLES) {
    const file = join(root, ...name.split('.'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, readFileSync(join('/proc/sys', ...name.split('.')), 'utf8'));
  }
  process.env['SVC_NODEAGENT_SYSCTL_ROOT'] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
