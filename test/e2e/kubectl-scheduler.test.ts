/**
 * svc-scheduler as a real process (leader-elected, from the admin svcconfig) against a real
 * svc-apiserver over HTTPS, driven with kubectl: a pod is bound, a pod that fits nowhere shows
 * PodScheduled=False and a FailedScheduling event, and SIGTERM ends the process cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const k = useKubectlServer('svc-e2e-scheduler-', 'memory');
let child: ChildProcess | undefined;
let stderr = '';

const nodeYaml = (name: string, cpu: string) => `apiVersion: v1
kind: Node
metadata:
  name: ${name}
status:
  allocatable: { cpu: "${cpu}", memory: 8Gi, pods: "110" }
  conditions:
  - { type: Ready, status: "True" }
`;

const podYaml = (name: string, cpu: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: c
    image: busybox
    resources: { requests: { cpu: "${cpu}" } }
`;

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - start > 30_000) throw new Error(`timed out waiting for ${what}; scheduler stderr:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-scheduler.ts', '--svcconfig', k.config, '--secure-port', '0', '--leader-elect-retry-period', '200ms', '-v', '2'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d) => (stderr += d));
});

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

describe('svc-scheduler with kubectl', () => {
  it('binds a pod, and marks one that fits nowhere', async () => {
    const file = join(k.dir, 'objects.yaml');
    writeFileSync(file, [nodeYaml('worker-1', '2'), podYaml('web', '500m'), podYaml('huge', '4')].join('---\n'));
    const applied = await kubectl(k.config, ['create', '-f', file]);
    expect(applied.stderr).toBe('');

    const nodeName = await poll(
      async () => (await kubectl(k.config, ['get', 'pod', 'web', '-o', 'jsonpath={.spec.nodeName}'])).stdout,
      (v) => v !== '',
      'web to be bound',
    );
    expect(nodeName).toBe('worker-1');

    const condition = await poll(
      async () => (await kubectl(k.config, ['get', 'pod', 'huge', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).stdout,
      (v) => v !== '',
      'huge to be marked unschedulable',
    );
    expect(condition).toBe('0/1 nodes are available: 1 Insufficient cpu.');

    const events = await poll(
      async () => (await kubectl(k.config, ['get', 'events', '-o', 'jsonpath={range .items[*]}{.reason}={.involvedObject.name}{"\\n"}{end}'])).stdout,
      (v) => v.includes('FailedScheduling=huge'),
      'the FailedScheduling event',
    );
    expect(events).toContain('FailedScheduling=huge');

    const lease = await kubectl(k.config, ['get', 'lease', 'svc-scheduler', '-n', 'svc-system', '-o', 'jsonpath={.spec.holderIdentity}']);
    expect(lease.stdout).not.toBe('');
    expect(stderr).toContain('leads: scheduling');
  });

  it('exits 0 on SIGTERM, releasing the Lease', async () => {
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
    const holder = await poll(
      async () => (await kubectl(k.config, ['get', 'lease', 'svc-scheduler', '-n', 'svc-system', '-o', 'jsonpath={.spec.holderIdentity}'])).stdout,
      (v) => v === '',
      'the Lease to be released',
    );
    expect(holder).toBe('');
  });
});
