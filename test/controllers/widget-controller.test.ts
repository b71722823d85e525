// The Widget controller of docs/controllers.md, run exactly as the page shows it (the block after
// the `widget-controller` marker; only its imports are pointed at the repo's sources and its fixed
// port becomes 0) against a real svc-apiserver: the CRD is created, the loop converges on
// scale-up and scale-down, writes status, and holds its Lease until closed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runControllers, type ControllerRuntime, type ControlLoop } from '../../controllers/index.js';
import { builtin, Client, type Resource } from '../../src/client/index.js';
import type { KubeObject } from '../../src/api/index.js';
import { eventually, startCluster, type Cluster } from './manager/support.js';

const root = join(import.meta.dirname, '..', '..');

/** The block of docs/controllers.md right after the `<!-- widget-controller: ... -->` line. */
function widgetBlock(): string {
  const lines = readFileSync(join(root, 'docs', 'controllers.md'), 'utf8').split('\n');
  const marker = lines.findIndex((l) => l.startsWith('<!-- widget-controller:'));
  expect(marker).toBeGreaterThanOrEqual(0);
  expect(lines[marker + 1]).toBe('```ts');
  const end = lines.findIndex((l, i) => i > marker + 1 && l.startsWith('```'));
  return lines.slice(marker + 2, end).join('\n');
}

type WidgetObject = KubeObject & { spec: { replicas: number }; status?: { readyReplicas: number } };

describe('the Widget controller of docs/controllers.md', () => {
  let cluster: Cluster;
  let scratch: string;
  let program: { runtime: ControllerRuntime; widgets: ControlLoop; Widget: { resource: Resource<WidgetObject> } };
  const saved = { SVCCONFIG: process.env['SVCCONFIG'], KUBECONFIG: process.env['KUBECONFIG'] };

  beforeAll(async () => {
    cluster = await startCluster();
    const code = widgetBlock()
      .replaceAll("'svc/client'", `'${pathToFileURL(join(root, 'src/client/index.ts')).href}'`)
      .replaceAll("'svc/controllers'", `'${pathToFileURL(join(root, 'controllers/index.ts')).href}'`)
      .replace('port: 8443', 'port: 0');
    mkdirSync(join(root, '.scratch'), { recursive: true });
    scratch = mkdtempSync(join(root, '.scratch', 'widget-'));
    writeFileSync(join(scratch, 'widget-controller.ts'), code);
    // Client.fromEnv() finds the cluster as kubectl would: through SVCCONFIG.
    process.env['SVCCONFIG'] = cluster.api.svcconfigPath;
    delete process.env['KUBECONFIG'];
    program = (await import(pathToFileURL(join(scratch, 'widget-controller.ts')).href)) as typeof program;
  });
  afterAll(async () => {
    await program?.runtime.close();
    for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
    await cluster.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const owned = async (uid: string) =>
    (await cluster.client.list(builtin.configMaps, { namespace: 'default' })).items.filter((c) => c.metadata.ownerReferences?.some((o) => o.uid === uid && o.controller)).map((c) => c.metadata.name).sort();

  it('keeps spec.replicas owned ConfigMaps, up and down, and reports status.readyReplicas', async () => {
    const widgets = program.Widget.resource;
    await program.runtime.firstTerm;
    const lease = await cluster.client.get(builtin.leases, 'widget-controller', { namespace: 'default' });
    expect(lease.spec?.holderIdentity).toBe(program.runtime.identity);
    expect(program.runtime.serving?.port).toBeGreaterThan(0);

    // The CRD may still be settling when the first create is tried: retry until it is served.
    let created: WidgetObject | undefined;
    await eventually(async () => {
      created = await cluster.client
        .create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { replicas: 3 } })
        .catch(() => undefined);
      return created !== undefined;
    }, 'the Widget CRD to be served');
    const uid = created!.metadata.uid!;
    await eventually(async () => (await owned(uid)).join() === 'w1-0,w1-1,w1-2', 'three owned ConfigMaps');
    await eventually(async () => (await cluster.client.get(widgets, 'w1', { namespace: 'default' })).status?.readyReplicas === 3, 'status.readyReplicas 3');

    await cluster.client.patch(widgets, 'w1', { spec: { replicas: 1 } }, { namespace: 'default', type: 'merge' });
    await eventually(async () => (await owned(uid)).join() === 'w1-0', 'one owned ConfigMap');
    await eventually(async () => (await cluster.client.get(widgets, 'w1', { namespace: 'default' })).status?.readyReplicas === 1, 'status.readyReplicas 1');

    // Someone deletes an owned ConfigMap: the controller puts it back.
    await cluster.client.delete(builtin.configMaps, 'w1-0', { namespace: 'default' });
    await eventually(async () => (await owned(uid)).join() === 'w1-0', 'the ConfigMap back');

    await program.runtime.close();
    expect((await cluster.client.get(builtin.leases, 'widget-controller', { namespace: 'default' })).spec?.holderIdentity ?? '').toBe('');
  });

  it('restarted on a cluster at its desired state, the same loop writes nothing', async () => {
    const writes: string[] = [];
    const client = await Client.fromSvcconfig(cluster.api.svcconfigPath, {
      throttle: async (request: { method?: string; path?: string }) => {
        if (request.method !== undefined && request.method !== 'GET') writes.push(`${request.method} ${request.path}`);
      },
    });
    const restarted = await runControllers({ name: 'widget-restart', client, controllers: { widgets: program.widgets }, election: false, signals: false });
    try {
      // Every Widget has been reconciled once the queue has finished work for it.
      const done = async () => /^workqueue_work_duration_seconds_count\{name="widgets",result="awaitChange"\} [1-9]/m.test((await restarted.metrics.render()).body);
      await eventually(async () => restarted.synced() && (await done()), 'the restarted loop to reconcile w1');
      expect(writes).toEqual([]);
      // The hook does see writes: one made through the same client is recorded.
      await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'control', namespace: 'default' } });
      expect(writes).toEqual(['POST /api/v1/namespaces/default/configmaps']);
    } finally {
      await restarted.close();
      await client.destroy();
    }
  });
});
