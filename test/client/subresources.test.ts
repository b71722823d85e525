/**
 * The Client's subresource calls against a real svc-apiserver over HTTPS: status (get, update,
 * every patch type, apply), scale, eviction, binding, and pod logs as lines through a real node
 * agent server whose containerLogs route writes known lines (no container runtime).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Pod } from '../../src/api/index.js';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';
import { createNamespaceWithAccount } from '../support/namespace-with-account.js';
import { builtin, Client } from '../../src/client/index.js';
import { CriClient, startAgentServer, type AgentRouteModule, type RunningAgentServer } from '../../src/nodeagent/index.js';
import { agentFlags } from '../nodeagent/server/support.js';
import { scratchDir } from '../support/scratch.js';
import { until } from './support.js';

const dir = scratchDir('svc-client-sub-');
let api: RunningApiServer;
let client: Client;
let cri: CriClient;
let agent: RunningAgentServer;
/** What the agent's log route was asked, and how many of its responses are open now. */
const logRequests: string[] = [];
let openLogs = 0;

/**
 * Stands in for the runtime's log (the agent's own route reads CRI log files): answers
 * containerLogs before that route with three lines (the last without its newline) or, when
 * followed, a line every 20 ms until the client hangs up.
 */
const fakeLogs: AgentRouteModule = {
  name: 'fake-logs',
  debugging: true,
  register(app) {
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.url.startsWith('/containerLogs/')) return done();
      logRequests.push(request.url);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/plain' });
      const follow = new URL(request.url, 'http://x').searchParams.get('follow') === 'true';
      if (!follow) {
        res.end('first line\nsecond ünïcode line\nno newline at the end');
        return;
      }
      openLogs += 1;
      let n = 0;
      const timer = setInterval(() => res.write(`tick ${n++}\n`), 20);
      res.on('close', () => {
        clearInterval(timer);
        openLogs -= 1;
      });
    });
  },
};

const pod = (name: string, extra: Partial<Pod['spec']> = {}): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...extra } }) as Pod;

beforeAll(async () => {
  cri = new CriClient({ endpoint: `unix://${join(dir, 'none.sock')}`, timeoutMs: 1000 });
  agent = await startAgentServer({ flags: agentFlags(dir, { certDir: join(dir, 'pki-agent') }), nodeName: 'n1', cri, routes: [fakeLogs] });
  writeFileSync(join(dir, 'agent-ca.pem'), agent.certificate);
  api = await startApiServer({
    dataDir: join(dir, 'api'),
    storage: 'memory',
    bindAddress: '127.0.0.1',
    securePort: 0,
    nodeAgent: { certificateAuthorityFile: join(dir, 'agent-ca.pem'), timeoutMs: 5000 },
  });
  client = await Client.fromSvcconfig(api.svcconfigPath);
  await client.create(builtin.nodes, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1' },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: agent.port } } },
  } as never);
}, 60_000);

afterAll(async () => {
  await client?.destroy();
  await agent?.close();
  cri?.close();
  await api?.close();
});

describe('status', () => {
  it('get, update, merge, json, strategic and apply patches write the status and nothing else', async () => {
    const made = await client.create(builtin.pods, pod('st'));
    expect((await client.getStatus(builtin.pods, 'st')).metadata.uid).toBe(made.metadata.uid);

    const updated = await client.updateStatus(builtin.pods, { ...made, spec: { ...made.spec, activeDeadlineSeconds: 5 }, status: { phase: 'Running' } });
    expect(updated.status?.phase).toBe('Running');
    expect(updated.spec.activeDeadlineSeconds).toBeUndefined();

    const merged = await client.patchStatus(builtin.pods, 'st', { status: { message: 'merge' }, spec: { activeDeadlineSeconds: 7 } });
    expect(merged.status).toMatchObject({ phase: 'Running', message: 'merge' });
    expect(merged.spec.activeDeadlineSeconds).toBeUndefined();

    const json = await client.patchStatus(builtin.pods, 'st', [{ op: 'replace', path: '/status/message', value: 'json' }], { type: 'json' });
    expect(json.status?.message).toBe('json');

    const strategic = await client.patchStatus(builtin.pods, 'st', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, { type: 'strategic' });
    expect(strategic.status?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True' })]);

    const applied = await client.applyStatus(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'st', namespace: 'default' }, status: { reason: 'Applied' } } as Pod, { fieldManager: 'status-test' });
    expect(applied.status?.reason).toBe('Applied');
    expect(applied.metadata.managedFields?.some((m) => m.manager === 'status-test' && m.subresource === 'status')).toBe(true);
  });

  it('a stale resourceVersion is a 409 Conflict and changes nothing', async () => {
    const made = await client.create(builtin.pods, pod('stale'));
    await client.patchStatus(builtin.pods, 'stale', { status: { message: 'new' } });
    await expect(client.updateStatus(builtin.pods, { ...made, status: { message: 'old' } })).rejects.toMatchObject({ code: 409, reason: 'Conflict' });
    expect((await client.getStatus(builtin.pods, 'stale')).status?.message).toBe('new');
  });
});

describe('scale', () => {
  const deployment = (name: string): Deployment =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    }) as Deployment;

  it('get, update and patch set spec.replicas of the deployment', async () => {
    await client.create(builtin.deployments, deployment('web'));
    const scale = await client.getScale(builtin.deployments, 'web');
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 } });
    const updated = await client.updateScale(builtin.deployments, { ...scale, spec: { replicas: 3 } });
    expect(updated.spec?.replicas).toBe(3);
    expect((await client.get(builtin.deployments, 'web')).spec?.replicas).toBe(3);
    await client.patchScale(builtin.deployments, 'web', { spec: { replicas: 5 } });
    await client.patchScale(builtin.deployments, 'web', [{ op: 'replace', path: '/spec/replicas', value: 4 }], { type: 'json' });
    expect((await client.get(builtin.deployments, 'web')).spec?.replicas).toBe(4);
  });

  it('a negative replica count is a 422 and changes nothing', async () => {
    await client.create(builtin.deployments, deployment('neg'));
    await expect(client.patchScale(builtin.deployments, 'neg', { spec: { replicas: -1 } })).rejects.toMatchObject({ code: 422, reason: 'Invalid' });
    expect((await client.get(builtin.deployments, 'neg')).spec?.replicas).toBe(1);
  });
});

describe('binding and eviction', () => {
  it('bind sets spec.nodeName once; a second bind is a 409', async () => {
    await client.create(builtin.pods, pod('to-bind'));
    await client.bind('to-bind', 'n1', { annotations: { 'example.com/why': 'test' } });
    const bound = await client.get(builtin.pods, 'to-bind');
    expect(bound.spec.nodeName).toBe('n1');
    expect(bound.metadata.annotations).toMatchObject({ 'example.com/why': 'test' });
    await expect(client.bind('to-bind', 'n2')).rejects.toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('evict deletes a pod no budget protects, and a budget that allows no disruption answers 429', async () => {
    await client.create(builtin.pods, pod('evictable'));
    await client.evict('evictable');
    await expect(client.get(builtin.pods, 'evictable')).rejects.toMatchObject({ code: 404 });

    await createNamespaceWithAccount(client, 'guarded');
    await client.create(builtin.pods, { ...pod('guarded-0'), metadata: { name: 'guarded-0', namespace: 'guarded', labels: { app: 'web' } } });
    await client.patchStatus(builtin.pods, 'guarded-0', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: 'guarded' });
    await client.create(builtin.podDisruptionBudgets, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb', namespace: 'guarded' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    } as never);
    await expect(client.evict('guarded-0', { namespace: 'guarded' })).rejects.toMatchObject({ code: 429, reason: 'TooManyRequests' });
    expect((await client.get(builtin.pods, 'guarded-0', { namespace: 'guarded' })).metadata.name).toBe('guarded-0');
  });

  it('evicting a pod that does not exist is a 404', async () => {
    await expect(client.evict('nobody')).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
  });
});

describe('logs$', () => {
  it('emits the log as lines, the last one without its newline, and passes the options on', async () => {
    await client.create(builtin.pods, pod('logger', { nodeName: 'n1' }));
    const lines = await firstValueFrom(client.logs$('logger', { container: 'c', tailLines: 10, sinceSeconds: 60, timestamps: true, previous: true, limitBytes: 4096 }).pipe(toArray()));
    expect(lines).toEqual(['first line', 'second ünïcode line', 'no newline at the end']);
    const asked = new URL(logRequests[logRequests.length - 1]!, 'http://x');
    expect(asked.pathname).toBe('/containerLogs/default/logger/c');
    expect(Object.fromEntries(asked.searchParams)).toEqual({ previous: 'true', timestamps: 'true', tailLines: '10', limitBytes: '4096', sinceSeconds: '60' });
  });

  it('follows, and unsubscribing ends the request (the agent sees its response closed)', async () => {
    const got = await firstValueFrom(client.logs$('logger', { follow: true }).pipe(take(3), toArray()));
    expect(got).toEqual(['tick 0', 'tick 1', 'tick 2']);
    await until(() => openLogs === 0, 'the followed log to be closed');
  });

  it('a pod on no node, or a container it does not have, errors with a StatusError', async () => {
    await client.create(builtin.pods, pod('nowhere'));
    await expect(firstValueFrom(client.logs$('nowhere'))).rejects.toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringContaining('nowhere') });
    await expect(firstValueFrom(client.logs$('logger', { container: 'nope' }))).rejects.toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});
