// SIGTERM to a process running the controller runtime: the loops drain, the Lease is released
// (holderIdentity cleared, so a successor leads at once) and the process exits 0 by itself.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { startCluster, type Cluster } from '../manager/support.js';

const root = join(import.meta.dirname, '..', '..', '..');

describe('the runtime on SIGTERM', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(async () => {
    await cluster.close();
  });

  it('drains, releases its Lease and exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'signal-program.ts')], {
      cwd: root,
      env: { ...process.env, SVCCONFIG: cluster.api.svcconfigPath, KUBECONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const identity = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /leading (\S+)\n/.exec(out);
          if (match) resolve(match[1]!);
        });
        void exited.then((code) => reject(new Error(`exited ${code} before leading: ${err}`)));
      });
      const lease = await cluster.client.get(builtin.leases, 'signalled', { namespace: 'default' });
      expect(lease.spec?.holderIdentity).toBe(identity);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('stopped');
      const after = await cluster.client.get(builtin.leases, 'signalled', { namespace: 'default' });
      expect(after.spec?.holderIdentity ?? '').toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
