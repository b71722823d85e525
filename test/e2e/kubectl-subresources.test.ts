import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`;

const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: drained}}
spec:
  nodeName: node-1
  containers: [{name: c, image: nginx}]
`;

describe('kubectl and the subresources', () => {
  const k = useKubectlServer('svc-kubectl-subresources-');

  it('scales a deployment through its scale subresource', async () => {
    expect((await kubectl(k.config, ['create', '-f', '-'], deployment)).code).toBe(0);
    const scaled = await kubectl(k.config, ['scale', 'deployment', 'web', '--replicas=3']);
    expect(scaled.stderr).toBe('');
    expect(scaled.stdout.trim()).toBe('deployment.apps/web scaled');
    const conditional = await kubectl(k.config, ['scale', 'deployment', 'web', '--current-replicas=3', '--replicas=4']);
    expect(conditional.code).toBe(0);
    const wrong = await kubectl(k.config, ['scale', 'deployment', 'web', '--current-replicas=1', '--replicas=5']);
    expect(wrong.code).not.toBe(0);
    const read = await kubectl(k.config, ['get', 'deployment', 'web', '--subresource=scale', '-o', 'jsonpath={.kind} {.spec.replicas} {.status.selector}']);
    expect(read.stdout).toBe('Scale 4 app=web');
  });

  it('writes status through --subresource=status, and the object keeps it', async () => {
    const patched = await kubectl(k.config, ['patch', 'deployment', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":4,"readyReplicas":2}}']);
    expect(patched.stderr).toBe('');
    const overwritten = await kubectl(k.config, ['patch', 'deployment', 'web', '--type=merge', '-p', '{"status":{"readyReplicas":0}}']);
    expect(overwritten.code).toBe(0);
    const read = await kubectl(k.config, ['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}']);
    expect(read.stdout).toBe('2');
  });

  it('is refused a status the rules refuse, named by field, and nothing is written', async () => {
    const before = await kubectl(k.config, ['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.resourceVersion}']);
    const refused = await kubectl(k.config, ['patch', 'deployment', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"availableReplicas":3}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The Deployment "web" is invalid: status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas');
    const after = await kubectl(k.config, ['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.resourceVersion} {.status.readyReplicas} {.status.availableReplicas}']);
    expect(after.stdout).toBe(`${before.stdout} 2 `);
    // At the boundary (as many available as ready) it is taken.
    const taken = await kubectl(k.config, ['patch', 'deployment', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"availableReplicas":2}}']);
    expect(taken.code, taken.stderr).toBe(0);
  });

  it('lists the resource types as before (subresources are discovery entries kubectl skips)', async () => {
    const res = await kubectl(k.config, ['api-resources', '--no-headers', '-o', 'name']);
    expect(res.code).toBe(0);
    const names = res.stdout.trim().split('\n');
    expect(names).toContain('pods');
    expect(names).toContain('deployments.apps');
    expect(names).toContain('bindings');
    expect(names.some((n) => n.includes('/'))).toBe(false);
  });

  it('drains a node by evicting its pods, held back by a PodDisruptionBudget', async () => {
    expect((await kubectl(k.config, ['create', '-f', '-'], 'apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n')).code).toBe(0);
    for (const name of ['d-0', 'd-1']) {
      expect((await kubectl(k.config, ['create', '-f', '-'], pod(name))).code).toBe(0);
      const ready = '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}';
      expect((await kubectl(k.config, ['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', ready])).code).toBe(0);
    }
    const pdb = 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: keep-one}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: drained}}\n';
    expect((await kubectl(k.config, ['create', '-f', '-'], pdb)).code).toBe(0);

    const held = await kubectl(k.config, ['drain', 'node-1', '--force', '--grace-period=0', '--timeout=7s']);
    expect(held.code).not.toBe(0);
    expect(held.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    const left = await kubectl(k.config, ['get', 'pods', '-l', 'app=drained', '-o', 'name']);
    expect(left.stdout.trim().split('\n')).toHaveLength(1);

    expect((await kubectl(k.config, ['delete', 'pdb', 'keep-one'])).code).toBe(0);
    const drained = await kubectl(k.config, ['drain', 'node-1', '--force', '--grace-period=0', '--timeout=20s']);
    expect(drained.code, drained.stderr).toBe(0);
    expect(drained.stdout).toContain('node/node-1 drained');
    expect((await kubectl(k.config, ['get', 'pods', '-l', 'app=drained', '-o', 'name'])).stdout.trim()).toBe('');
  });
});
