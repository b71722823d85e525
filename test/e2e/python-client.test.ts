// The Kubernetes Python client (Debian's python3-kubernetes, installed by scripts/provision.mjs)
// against a real HTTPS svc-apiserver: a generated client whose models read a missing field as
// None and refuse some (a Node's nodeInfo), and which prints error bodies verbatim.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useKubectlServer } from '../support/kubectl.js';

/** Debian's interpreter: the one python3-kubernetes is installed for (a python3 earlier on PATH may lack it). */
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'python', 'client_checks.py');

function requirePythonClient(): void {
  const found = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`python3-kubernetes is required by this suite (scripts/provision.mjs installs it): ${found.stderr}`);
}

/** Runs the script's steps; resolves with each step's facts. */
function runSteps(config: string, steps: readonly string[]): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT, config, ...steps], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`client_checks.py ${steps.join(' ')} exited ${code}:\n${stderr}`));
      const facts: Record<string, any> = {};
      for (const line of stdout.split('\n').filter(Boolean)) {
        const { step, ...rest } = JSON.parse(line) as { step: string };
        facts[step] = rest;
      }
      resolve(facts);
    });
  });
}

describe('the Kubernetes Python client', () => {
  const k = useKubectlServer('svc-python-');

  it('creates, reads and lists a Service, and sees the fields Kubernetes always answers', async () => {
    requirePythonClient();
    const { service } = await runSteps(k.config, ['service']);
    expect(service).toMatchObject({
      created_load_balancer: true,
      read_load_balancer: true,
      type: 'ClusterIP',
      session_affinity: 'None',
      protocol: 'TCP',
      target_port: 80,
      creation_timestamp: true,
      listed: ['py-svc'],
    });
    // The error body as the client prints it: the Status, ended by a newline as Go writes it.
    expect(service.duplicate.status).toBe(409);
    expect(service.duplicate.body.endsWith('}\n')).toBe(true);
    expect(JSON.parse(service.duplicate.body)).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', code: 409 });
  });

  it('reads a Node (its model refuses a status without daemonEndpoints and nodeInfo)', async () => {
    requirePythonClient();
    const { node } = await runSteps(k.config, ['node']);
    expect(node).toEqual({ kubelet_port: 0, system_uuid: '', listed: ['py-node'] });
  });

  it('create_from_yaml creates a Deployment with its defaults and prints a failed create verbatim', async () => {
    requirePythonClient();
    const { yaml } = await runSteps(k.config, ['yaml']);
    expect(yaml).toMatchObject({ replicas: 1, strategy: 'RollingUpdate', status: true, pull_policy: 'Always' });
    expect(yaml.failure).toHaveLength(2);
    for (const failure of yaml.failure) {
      expect(failure.status).toBe(409);
      expect(failure.body.endsWith('}\n')).toBe(true);
    }
  });

  it('lists with pretty=True and watches (the client sends Python\'s True)', async () => {
    requirePythonClient();
    const { pretty, watch } = await runSteps(k.config, ['pretty', 'watch']);
    expect(pretty.listed).toContain('default');
    expect(watch.events).toEqual([['ADDED', 'py-watched', true]]);
  });
});
