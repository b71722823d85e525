import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const deployment = (image: string, replicas: number) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: ${replicas}\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: "${image}"}]\n`;

describe('kubectl patch and server-side apply against svc-apiserver', () => {
  const k = useKubectlServer('svc-kubectl-writes-');

  it('patches with --type=merge, --type=json and the default strategic merge', async () => {
    const cm = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patched' }, data: { a: 'b' } });
    expect((await kubectl(k.config, ['create', '-f', '-'], cm)).code).toBe(0);
    for (const args of [
      ['--type=merge', '-p', '{"data":{"a":"merged"}}'],
      ['--type=json', '-p', '[{"op":"add","path":"/data/j","value":"json"}]'],
      ['-p', '{"data":{"s":"strategic"}}'],
    ]) {
      const res = await kubectl(k.config, ['patch', 'configmap', 'patched', ...args]);
      expect(res.stderr).toBe('');
      expect(res.stdout.trim()).toBe('configmap/patched patched');
    }
    const data = await kubectl(k.config, ['get', 'configmap', 'patched', '-o', 'jsonpath={.data}']);
    expect(JSON.parse(data.stdout)).toEqual({ a: 'merged', j: 'json', s: 'strategic' });
    const bad = await kubectl(k.config, ['patch', 'configmap', 'patched', '--type=json', '-p', '[{"op":"replace","path":"/data/missing","value":"x"}]']);
    expect(bad.code).not.toBe(0);
  });

  it('applies server-side, tracks the manager, reports conflicts with another manager and forces them', async () => {
    const file = join(k.dir, 'web.yaml');
    writeFileSync(file, deployment('nginx:1', 2));
    expect((await kubectl(k.config, ['apply', '--server-side', '-f', file])).stdout.trim()).toBe('deployment.apps/web serverside-applied');
    writeFileSync(file, deployment('nginx:2', 2));
    expect((await kubectl(k.config, ['apply', '--server-side', '-f', file])).code).toBe(0);
    const got = await kubectl(k.config, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image} {.metadata.managedFields[*].manager}']);
    expect(got.stdout).toBe('nginx:2 kubectl');

    const other = await kubectl(k.config, ['apply', '--server-side', '--field-manager=other', '-f', '-'], deployment('nginx:2', 5));
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');

    const forced = await kubectl(k.config, ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], deployment('nginx:2', 5));
    expect(forced.code).toBe(0);
    const after = await kubectl(k.config, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}']);
    expect(after.stdout).toBe('5');
  });
});
