// Jobs against `svc up` with real containers: the cluster's own containerd and node agent run the
// pods, its controller manager's job controller counts them. A Job of 3 completions, 2 at a time,
// completes; a Job whose pods exit 1 stops at its backoff limit; a finished Job's TTL deletes it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../controllers/support.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { testPodCidr } from '../support/svc-up.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-e2e-jobs-');
const config = join(dir, 'admin.svcconfig');
let child: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;
const stderr: string[] = [];
const k = (args: readonly string[], stdin?: string) => kubectl(config, args, stdin);

/** A Job of svc's local busybox (present on the node: never pulled). */
const job = (name: string, script: string, spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'svc.local/busybox:latest', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script] }] } },
    },
  });

beforeAll(async () => {
  requireKubectl();
  child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--node-agent-port=0', testPodCidr(), '--disable-dashboard'], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  exited = new Promise((resolve) => child!.on('exit', (code) => resolve(code)));
  for await (const line of createInterface({ input: child.stdout! })) if (line.startsWith('  kubectl')) break;
  await eventually(async () => (await k(['get', 'nodes', '-o', 'jsonpath={.items[0].status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 'the node to be Ready', 120_000);
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGINT');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('Jobs against svc up with real containers', () => {
  it('a Job of 3 completions with parallelism 2 completes, each pod counted once', async () => {
    const created = await k(['apply', '-f', '-'], job('e2e-three', 'echo done', { completions: 3, parallelism: 2 }));
    expect(created.code, created.stderr).toBe(0);
    const wait = await k(['wait', '--for=condition=complete', 'job/e2e-three', '--timeout=150s']);
    expect(wait.code, `${wait.stderr}\n${stderr.join('').slice(-2000)}`).toBe(0);
    const status = JSON.parse((await k(['get', 'job', 'e2e-three', '-o', 'json'])).stdout).status;
    expect(status).toMatchObject({ succeeded: 3, active: 0 });
    expect(status.failed ?? 0).toBe(0);
    const pods = JSON.parse((await k(['get', 'pods', '-l', 'batch.svc.io/job-name=e2e-three', '-o', 'json'])).stdout).items;
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.status.phase).toBe('Succeeded');
      expect(pod.metadata.finalizers ?? []).not.toContain('batch.svc.io/job-tracking');
    }
    const logs = await k(['logs', 'job/e2e-three']);
    expect(logs.stdout).toContain('done');
  }, 180_000);

  it('a Job whose pods fail stops at its backoff limit', async () => {
    const created = await k(['apply', '-f', '-'], job('e2e-fails', 'exit 3', { backoffLimit: 1 }));
    expect(created.code, created.stderr).toBe(0);
    // One retry, after the 10 s back-off.
    const wait = await k(['wait', '--for=condition=failed', 'job/e2e-fails', '--timeout=150s']);
    expect(wait.code, wait.stderr).toBe(0);
    const jobObject = JSON.parse((await k(['get', 'job', 'e2e-fails', '-o', 'json'])).stdout);
    expect(jobObject.status).toMatchObject({ failed: 2, active: 0 });
    expect(jobObject.status.conditions.find((c: { type: string }) => c.type === 'Failed')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    const pods = JSON.parse((await k(['get', 'pods', '-l', 'batch.svc.io/job-name=e2e-fails', '-o', 'json'])).stdout).items;
    expect(pods).toHaveLength(2);
    for (const pod of pods) expect(pod.status.containerStatuses[0].state.terminated.exitCode).toBe(3);
  }, 180_000);

  it('a finished Job with ttlSecondsAfterFinished 0 is deleted, and the garbage collector removes its pods', async () => {
    const created = await k(['apply', '-f', '-'], job('e2e-ttl', 'true', { ttlSecondsAfterFinished: 0 }));
    expect(created.code, created.stderr).toBe(0);
    await eventually(async () => (await k(['get', 'job', 'e2e-ttl', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 'the Job deleted', 120_000);
    await eventually(async () => (await k(['get', 'pods', '-l', 'batch.svc.io/job-name=e2e-ttl', '-o', 'name'])).stdout.trim() === '', 'its pod collected', 120_000);
    // It did run to completion first: the Job controller's Event outlives the Job.
    const events = await k(['get', 'events', '--field-selector=involvedObject.name=e2e-ttl', '-o', 'jsonpath={.items[*].reason}']);
    expect(events.stdout.split(' ')).toContain('Completed');
  }, 180_000);
});
