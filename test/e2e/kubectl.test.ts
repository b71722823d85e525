import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

describe('kubectl against svc-apiserver over HTTPS with the written svcconfig', () => {
  const k = useKubectlServer('svc-kubectl-');

  it('lists the namespaces that exist from the first start', async () => {
    const res = await kubectl(k.config, ['get', 'namespaces']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const ns of ['default', 'svc-system', 'svc-public', 'svc-node-lease']) expect(res.stdout).toContain(ns);
  });

  it('creates from a file, reads back as YAML, and deletes', async () => {
    const manifest = join(k.dir, 'cm.yaml');
    writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app: demo}\ndata:\n  color: blue\n');
    const created = await kubectl(k.config, ['create', '-f', manifest]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('configmap/settings created');

    const yaml = await kubectl(k.config, ['get', 'configmap', 'settings', '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    const object = parse(yaml.stdout);
    expect(object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { color: 'blue' }, metadata: { name: 'settings', namespace: 'default' } });
    expect(object.metadata.resourceVersion).toMatch(/^\d+$/);
    expect((await kubectl(k.config, ['get', 'cm', '-l', 'app=demo', '-o', 'name'])).stdout.trim()).toBe('configmap/settings');

    const again = await kubectl(k.config, ['create', '-f', manifest]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('AlreadyExists');

    const deleted = await kubectl(k.config, ['delete', 'configmap', 'settings']);
    expect(deleted.stderr).toBe('');
    expect(deleted.stdout.trim()).toBe('configmap "settings" deleted');
    const missing = await kubectl(k.config, ['get', 'configmap', 'settings']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('configmaps "settings" not found');
  });

  it('creates in another API group and namespace', async () => {
    const manifest = join(k.dir, 'app.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---',
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n',
      ].join('\n'),
    );
    const created = await kubectl(k.config, ['create', '-f', manifest]);
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('namespace/shop created');
    expect(created.stdout).toContain('deployment.apps/web created');
    const names = await kubectl(k.config, ['get', 'deployments', '-n', 'shop', '-o', 'name']);
    expect(names.stdout.trim()).toBe('deployment.apps/web');
  });

  it('fails with Unauthorized when the token is wrong', async () => {
    const bad = join(k.dir, 'bad.svcconfig');
    writeFileSync(bad, readFileSync(k.config, 'utf8').replace(k.server.adminToken, 'not-the-token'));
    const res = await kubectl(bad, ['get', 'namespaces']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
