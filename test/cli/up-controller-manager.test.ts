// `svc up` runs the controller manager and the scheduler beside the API server: each campaigns
// for its Lease in svc-system as the admin, and they stop cleanly with the cluster.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, builtin } from '../../src/client/index.js';
import { eventually } from '../controllers/manager/support.js';
import { kubectl } from '../support/kubectl.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-up-cm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc up with the controller manager and the scheduler', () => {
  it('takes the controller manager Lease and stops cleanly on SIGINT', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--storage=sqlite', '--disable-agent', '--disable-dashboard'], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let client: Client | undefined;
    try {
      for await (const line of createInterface({ input: child.stdout })) if (line.startsWith('  kubectl')) break;
      client = await Client.fromSvcconfig(join(dir, 'admin.svcconfig'));
      const c = client;
      const holder = async () => {
        try {
          return (await c.get(builtin.leases, 'svc-controller-manager', { namespace: 'svc-system' })).spec?.holderIdentity;
        } catch {
          return undefined;
        }
      };
      await eventually(async () => Boolean(await holder()), 'the controller manager to take its Lease');
      await eventually(() => stderr.join('').includes('started namespace-controller'), 'the log line of the first loop');
      expect(stderr.join('')).toContain('became leader');
      // kubectl sees the same Lease, held by this host's manager.
      const got = await kubectl(join(dir, 'admin.svcconfig'), ['get', 'lease', '-n', 'svc-system', 'svc-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}']);
      expect(got.code, got.stderr).toBe(0);
      expect(got.stdout).toBe(await holder());

      // The scheduler runs beside them: it takes its own Lease and binds a pod to a Node.
      const schedulerHolder = async () => {
        try {
          return (await c.get(builtin.leases, 'svc-scheduler', { namespace: 'svc-system' })).spec?.holderIdentity;
        } catch {
          return undefined;
        }
      };
      await eventually(async () => Boolean(await schedulerHolder()), 'the scheduler to take its Lease');
      await c.create(builtin.nodes, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'up-node' },
        status: { allocatable: { cpu: '2', memory: '4Gi', pods: '110' }, capacity: { cpu: '2', memory: '4Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
      } as never);
      await c.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'up-pod', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as never);
      await eventually(async () => (await c.get(builtin.pods, 'up-pod', { namespace: 'default' })).spec?.nodeName === 'up-node', 'the scheduler to bind the pod');

      child.kill('SIGINT');
      expect(await exited, stderr.join('')).toBe(0);
    } finally {
      await client?.destroy();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
