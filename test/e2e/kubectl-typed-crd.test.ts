import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type StatusError } from '../../src/api/index.js';
import { main } from '../../src/cli/svc-command.js';
import { z } from 'zod';
import { Client, customResourceDefinitions, defineCustomResource, Informer } from '../../src/client/index.js';
import { TypedWidget, type TypedWidgetObject } from '../client/typed-widget.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

// Paths as a user gives them, from the repository root (vitest's working directory).
const ROOT = join(import.meta.dirname, '../..');
const MODULE = 'test/client/typed-widget.ts';

async function svc(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => void out.push(line), err: (line) => void err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: TypedWidget.apiVersion, kind: 'Widget', metadata: { name, namespace: 'default' }, spec }) as TypedWidgetObject;

async function refusal(write: Promise<unknown>): Promise<StatusError> {
  const error = await write.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isStatusError(error)) throw new Error(`expected a StatusError, got ${String(error)}`);
  return error;
}

describe('a custom resource defined with defineCustomResource, on a real svc-apiserver', () => {
  const k = useKubectlServer('svc-typed-crd-');
  let client: Client;
  beforeAll(async () => {
    client = await Client.fromSvcconfig(k.config);
  });
  afterAll(() => client?.close());

  it('`svc crd` prints the CRD, and `kubectl apply -f -` of it gets an Established CRD', async () => {
    const printed = await svc(['crd', `${MODULE}#TypedWidget`]);
    expect(printed.err).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.out).toMatch(/^apiVersion: apiextensions\.k8s\.io\/v1\nkind: CustomResourceDefinition\n/);
    expect(await svc(['crd', MODULE])).toEqual(printed); // the module's only definition
    // The bin itself, as a user runs it on a TypeScript module (tsx loads it).
    const bin = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'crd', `${MODULE}#TypedWidget`], { encoding: 'utf8', cwd: ROOT });
    expect(bin.stderr).toBe('');
    expect(bin.status).toBe(0);
    expect(bin.stdout).toBe(`${printed.out}\n`);

    const applied = await kubectl(k.config, ['apply', '-f', '-'], printed.out);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toMatch(/^customresourcedefinition\.apiextensions\.(k8s|svc)\.io\/widgets\.typed\.example\.com created$/);
    const waited = await kubectl(k.config, ['wait', '--for=condition=Established', '--timeout=30s', 'crd/widgets.typed.example.com']);
    expect(waited.code).toBe(0);
  });

  it('creates, gets and lists typed Widgets with the client, defaulted by the generated schema', async () => {
    const created = await client.create(TypedWidget.resource, widget('w1', { replicas: 2, color: 'blue', port: 'http', extra: { note: 'n', kept: true } }), { namespace: 'default' });
    expect(created.spec.size).toBe('medium');
    expect(created.spec.extra).toEqual({ note: 'n', kept: true });
    const got = await client.get(TypedWidget.resource, 'w1', { namespace: 'default' });
    expect(got.spec.replicas).toBe(2);
    expect(got.metadata.uid).toBe(created.metadata.uid);
    await client.create(TypedWidget.resource, widget('w2', { replicas: 0, size: 'large', port: 8080 }), { namespace: 'default' });
    const listed = await client.list(TypedWidget.resource, { namespace: 'default' });
    expect(listed.items.map((item) => `${item.metadata.name}:${item.spec.size}`).sort()).toEqual(['w1:medium', 'w2:large']);
  });

  it('refuses Widgets the generated schema rejects with 422, storing nothing', async () => {
    for (const [name, spec, field] of [
      ['too-many', { replicas: 11 }, 'spec.replicas'],
      ['bad-size', { replicas: 1, size: 'huge' }, 'spec.size'],
      ['bad-color', { replicas: 1, color: 'Red' }, 'spec.color'],
      ['no-replicas', { size: 'small' }, 'spec.replicas'],
      ['bad-weight', { replicas: 1, parts: [{ name: 'p', weight: 0 }] }, 'spec.parts[0].weight'],
      ['bad-port', { replicas: 1, port: true }, 'spec.port'],
    ] as const) {
      const error = await refusal(client.create(TypedWidget.resource, widget(name, spec), { namespace: 'default' }));
      expect(error.code, name).toBe(422);
      expect(error.details?.causes?.map((cause) => cause.field), name).toContain(field);
    }
    const names = (await client.list(TypedWidget.resource, { namespace: 'default' })).items.map((item) => item.metadata.name);
    expect(names.sort()).toEqual(['w1', 'w2']);

    const viaKubectl = await kubectl(k.config, ['apply', '-f', '-'], JSON.stringify(widget('k-bad', { replicas: -1 })));
    expect(viaKubectl.code).not.toBe(0);
    expect(viaKubectl.stderr).toMatch(/is invalid/);
  });

  it('shows the printer columns in `kubectl get widgets`, the wide one with -o wide', async () => {
    const got = await kubectl(k.config, ['get', 'widgets.typed.example.com']);
    expect(got.stderr).toBe('');
    expect(got.stdout.split('\n')[0]).toMatch(/^NAME\s+SIZE\s+REPLICAS$/);
    expect(got.stdout).toMatch(/\nw1\s+medium\s+2\n/);
    const wide = await kubectl(k.config, ['get', 'wdg', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/^NAME\s+SIZE\s+REPLICAS\s+COLOR$/);
    expect(wide.stdout).toMatch(/w1\s+medium\s+2\s+blue/);
  });

  it('serves the status and scale subresources the definition asks for', async () => {
    const status = await kubectl(k.config, ['patch', 'widgets.typed.example.com', 'w1', '-n', 'default', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { replicas: 2, selector: 'app=w1', phase: 'Ready' }, spec: { replicas: 9 } })]);
    expect(status.stderr).toBe('');
    const afterStatus = await client.get(TypedWidget.resource, 'w1', { namespace: 'default' });
    expect(afterStatus.status).toEqual({ replicas: 2, selector: 'app=w1', phase: 'Ready' });
    expect(afterStatus.spec.replicas).toBe(2); // the status endpoint writes status only
    const scale = await kubectl(k.config, ['get', '--raw', '/apis/typed.example.com/v1/namespaces/default/widgets/w1/scale']);
    expect(JSON.parse(scale.stdout)).toMatchObject({ kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=w1' } });

    // The client's subresource calls take the typed address too.
    const patched = await client.patchStatus(TypedWidget.resource, 'w2', { status: { phase: 'Pending' } }, { namespace: 'default' });
    expect(patched.status?.phase).toBe('Pending');
    await client.patchScale(TypedWidget.resource, 'w1', { spec: { replicas: 3 } }, { namespace: 'default' });
    expect((await client.get(TypedWidget.resource, 'w1', { namespace: 'default' })).spec.replicas).toBe(3);
    expect((await client.getScale(TypedWidget.resource, 'w1', { namespace: 'default' })).spec?.replicas).toBe(3);
    const scaled = await kubectl(k.config, ['scale', 'widgets.typed.example.com/w1', '--replicas=3', '-n', 'default']);
    expect(scaled.stderr).toBe('');
    expect((await client.get(TypedWidget.resource, 'w1', { namespace: 'default' })).spec.replicas).toBe(3);
  });

  it('feeds an Informer of typed Widgets', async () => {
    const informer = new Informer(client, TypedWidget.resource, { namespace: 'default' });
    try {
      await informer.waitForSync();
      expect(informer.store.get('default/w2')?.spec.size).toBe('large');
      const seen = new Promise<TypedWidgetObject>((resolve) => {
        const subscription = informer.events$.subscribe((event) => {
          if (event.type === 'added' && event.object.metadata.name === 'w3') {
            resolve(event.object);
            queueMicrotask(() => subscription.unsubscribe());
          }
        });
      });
      await client.create(TypedWidget.resource, widget('w3', { replicas: 1, size: 'small' }), { namespace: 'default' });
      expect((await seen).spec.size).toBe('small');
    } finally {
      informer.stop();
    }
  });

  it('creates a definition with the client, and serves its cluster-scoped objects', async () => {
    const Gadget = defineCustomResource({
      group: 'typed.example.com',
      names: { plural: 'gadgets', kind: 'Gadget' },
      scope: 'Cluster',
      version: 'v1alpha1',
      spec: z.object({ level: z.int().min(1) }),
    });
    const created = await client.create(customResourceDefinitions, Gadget.definition);
    expect(created.metadata.name).toBe('gadgets.typed.example.com');
    const established = async () => {
      const crd = await client.get(customResourceDefinitions, 'gadgets.typed.example.com');
      return crd.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') ?? false;
    };
    const waited = await kubectl(k.config, ['wait', '--for=condition=Established', '--timeout=30s', 'crd/gadgets.typed.example.com']);
    expect(waited.code).toBe(0);
    expect(await established()).toBe(true);
    const gadget = await client.create(Gadget.resource, { apiVersion: Gadget.apiVersion, kind: 'Gadget', metadata: { name: 'g1' }, spec: { level: 2 } });
    expect(gadget.metadata.namespace).toBeUndefined();
    expect((await client.get(Gadget.resource, 'g1')).spec.level).toBe(2);
    const error = await refusal(client.create(Gadget.resource, { apiVersion: Gadget.apiVersion, kind: 'Gadget', metadata: { name: 'g0' }, spec: { level: 0 } }));
    expect(error.code).toBe(422);
  });

  it('`svc crd` exits 1 naming the problem for a missing export or module', async () => {
    const missing = await svc(['crd', `${MODULE}#Nope`]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('has no export "Nope" made with defineCustomResource');
    const noModule = await svc(['crd', 'test/client/no-such-module.ts']);
    expect(noModule.code).toBe(1);
    expect(noModule.err).toContain('cannot load test/client/no-such-module.ts');
    const usage = await svc(['crd']);
    expect(usage.code).toBe(2);
  });
});
