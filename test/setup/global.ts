import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KERNEL_TUNABLES } from '../../src/nodeagent/node/kernel-tunables.js';

/**
 * Runs once before every suite. Every node agent a suite starts (in process, the bin, `svc up`)
 * reads and writes its kernel tunables in a copy of the host's values instead of /proc/sys
 * (SVC_NODEAGENT_SYSCTL_ROOT, inherited by the workers and their children): no test changes this
 * host's kernel. A tunable this host does not show (a container's /proc/sys) gets the agent's value.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'svc-sysctl-'));
  for (const [name, expected] of Object.entries(KERNEL_TUNABLES)) {
    const path = name.split('.');
    const file = join(root, ...path);
    mkdirSync(dirname(file), { recursive: true });
    let value: string;
    try {
      value = readFileSync(join('/proc/sys', ...path), 'utf8');
    } catch {
      value = `${expected}\n`;
    }
    writeFileSync(file, value);
  }
  process.env['SVC_NODEAGENT_SYSCTL_ROOT'] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
