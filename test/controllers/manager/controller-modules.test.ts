// A user's own controller in svc-controller-manager without editing svc: a module written to a
// temporary directory, named by --controller-module or by --config's controllerModules, selected
// with --controllers, reconciling against a real svc-apiserver.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { eventually, startCluster, type Cluster } from './support.js';

const root = join(import.meta.dirname, '..', '..', '..');
const svc = (file: string) => pathToFileURL(join(root, file)).href;

/** A controller module as a user writes it: loops by name in the default export. */
const MODULE = `
import { builtin } from '${svc('src/client/index.ts')}';
import { controller } from '${svc('controllers/index.ts')}';

// Keeps a ConfigMap "<name>-copy" beside every ConfigMap labelled copy=yes.
export default {
  'configmap-copier': (ctx) => {
    const configMaps = ctx.informers.informer(builtin.configMaps, { labelSelector: 'copy=yes' });
    return controller({
      ...ctx.controllerDefaults(),
      name: ctx.name,
      for: configMaps,
      reconcile: async (key) => {
        const source = configMaps.store.get(key);
        if (!source) return;
        const { name, namespace } = source.metadata;
        await ctx.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name + '-copy', namespace }, data: source.data ?? {} })
          .catch((error) => { if (error.code !== 409) throw error; });
        ctx.events.record({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name, uid: source.metadata.uid }, 'Normal', 'Copied', 'copied');
      },
    });
  },
};
`;

describe('controller modules', () => {
  let cluster: Cluster;
  let dir: string;
  beforeAll(async () => {
    cluster = await startCluster();
    dir = mkdtempSync(join(tmpdir(), 'svc-cm-module-'));
    writeFileSync(join(dir, 'copier.mjs'), MODULE);
    writeFileSync(join(dir, 'named.mjs'), MODULE.replace('export default {', 'export const controllers = {').replace("'configmap-copier'", "'named-copier'"));
    writeFileSync(join(dir, 'empty.mjs'), 'export const nothing = 1;\n');
    writeFileSync(join(dir, 'clash.mjs'), "export default { 'namespace-controller': () => undefined };\n");
  });
  afterAll(async () => {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const copyOf = async (namespace: string, name: string) =>
    cluster.client.get(builtin.configMaps, `${name}-copy`, { namespace }).then(
      (c) => c,
      () => undefined,
    );

  it('--controller-module=PATH: the module’s loops run under their names, selected by --controllers, and reconcile', async () => {
    const manager = await cluster.manager([`--controller-module=${join(dir, 'copier.mjs')}`, '--controllers=namespace,configmap-copier', '--leader-elect=false']);
    expect(manager.running).toEqual(['namespace-controller', 'configmap-copier']);
    await cluster.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default', labels: { copy: 'yes' } }, data: { k: 'v' } });
    await eventually(async () => (await copyOf('default', 'one')) !== undefined, 'the copy');
    expect((await copyOf('default', 'one'))!.data).toEqual({ k: 'v' });
    const events = (await cluster.client.list(builtin.coreEvents, { namespace: 'default' })).items.filter((e) => e.reason === 'Copied');
    expect(events.map((e) => e.reportingComponent)).toEqual(['configmap-copier']);
    await manager.close();
  });

  it('--config with controllerModules (paths relative to the file) and a named export `controllers`; * turns module loops on, -name off', async () => {
    writeFileSync(
      join(dir, 'config.yaml'),
      ['apiVersion: controllermanager.config.svc.io/v1alpha1', 'kind: ControllerManagerConfiguration', 'controllerModules:', '  - ./named.mjs', '  - ./copier.mjs', ''].join('\n'),
    );
    const manager = await cluster.manager([`--config=${join(dir, 'config.yaml')}`, '--controllers=*,-configmap-copier,-garbage-collector-controller', '--leader-elect=false']);
    expect(manager.running).toContain('named-copier');
    expect(manager.running).toContain('namespace-controller');
    expect(manager.running).not.toContain('configmap-copier');
    await cluster.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two', namespace: 'default', labels: { copy: 'yes' } } });
    await eventually(async () => (await copyOf('default', 'two')) !== undefined, 'the copy by named-copier');
    await manager.close();
  });

  it('refuses a module without loops, a built-in name, an unknown --controllers name and a bad config, saying which', async () => {
    await expect(cluster.manager([`--controller-module=${join(dir, 'empty.mjs')}`, '--leader-elect=false'])).rejects.toThrow(/empty\.mjs: no default export and no export named "controllers"/);
    await expect(cluster.manager([`--controller-module=${join(dir, 'clash.mjs')}`, '--leader-elect=false'])).rejects.toThrow(/"namespace-controller" is a built-in controller's name/);
    await expect(cluster.manager([`--controller-module=${join(dir, 'copier.mjs')}`, '--controllers=*,nope', '--leader-elect=false'])).rejects.toThrow(/--controllers: unknown controller "nope"/);
    await expect(cluster.manager([`--controller-module=${join(dir, 'missing.mjs')}`, '--leader-elect=false'])).rejects.toThrow(/missing\.mjs: cannot load it/);
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: Other\n');
    await expect(cluster.manager([`--config=${join(dir, 'bad.yaml')}`, '--leader-elect=false'])).rejects.toThrow(/--config: .*bad\.yaml: apiVersion/);
  });
});
