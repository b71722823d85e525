import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyKernelTunables } from '../../src/nodeagent/node/kernel-tunables.js';

/**
 * Runs once before every suite. Every node agent a suite starts (in process, the bin, `svc up`)
 * reads and writes its kernel tunables in a copy of the host's values instead of /proc/sys
 * (SVC_NODEAGENT_SYSCTL_ROOT, inherited by the workers and their children): no test changes this
 * host's kernel.
 */
export default function setup(): () => void {
  const root = copyKernelTunables(mkdtempSync(join(tmpdir(), 'svc-sysctl-')));
  process.env['SVC_NODEAGENT_SYSCTL_ROOT'] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
