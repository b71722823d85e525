// The manager's secure port over real HTTPS: health endpoints, Prometheus metrics, profiling,
// and the authorization the spec describes (health paths always allowed, the rest forbidden
// without --authorization-svcconfig).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControllerManager } from '../../../controllers/manager/index.js';
import { builtin } from '../../../src/client/index.js';
import { eventually, ANY_SECURE_PORT, startCluster, type Cluster } from './support.js';
import { http2Get } from '../../support/http2-get.js';
import { scratchDir } from '../../support/scratch.js';

describe('the secure port', () => {
  let cluster: Cluster;
  let open: RunningControllerManager;
  let locked: RunningControllerManager;
  let agent: Agent;
  let ca: string;

  const get = async (m: RunningControllerManager, path: string) => {
    const res = await request(`${m.serving!.url}${path}`, { dispatcher: agent });
    const text = await res.body.text();
    return { status: res.statusCode, text, type: String(res.headers['content-type']) };
  };

  beforeAll(async () => {
    cluster = await startCluster();
    const certDir = scratchDir('svc-cm-certs-');
    open = await cluster.manager([
      ANY_SECURE_PORT,
      '--bind-address=127.0.0.1',
      `--cert-dir=${certDir}`,
      '--leader-elect=false',
      '--authorization-always-allow-paths=/healthz,/healthz/*,/readyz,/livez,/livez/*,/metrics,/debug/pprof/*',
      '--latency-annotation=test.svc.io/sent',
    ]);
    locked = await cluster.manager([ANY_SECURE_PORT, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, '--leader-elect=false', '--profiling=false', '--authorization-always-allow-paths=/healthz,/readyz,/livez,/debug/pprof/*']);
    ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
    agent = new Agent({ connect: { ca } }); // verifies the generated certificate against the CA in --cert-dir
  });
  afterAll(async () => {
    await agent.close();
    await cluster.close();
  });

  it('serves /healthz, /livez and /readyz as ok, to anyone', async () => {
    await eventually(() => locked.synced(), 'the caches to sync (ready)');
    for (const path of ['/healthz', '/livez', '/readyz']) {
      expect(await get(locked, path)).toMatchObject({ status: 200, text: 'ok' });
    }
  });

  it('lists the checks with ?verbose, runs one by name, and 404s an unknown one', async () => {
    await eventually(() => open.synced(), 'the caches to sync (ready)');
    const verbose = await get(open, '/readyz?verbose');
    expect(verbose.text).toContain('[+]informer-sync ok');
    expect(verbose.status).toBe(200);
    expect(verbose.text).toContain('[+]ping ok');
    expect(verbose.text).toContain('[+]shutdown ok');
    expect(verbose.text).toContain('readyz check passed');
    expect(await get(open, '/readyz?verbose&exclude=shutdown')).toMatchObject({ text: expect.stringContaining('[+]shutdown excluded: ok') });
    expect(await get(open, '/healthz/ping')).toMatchObject({ status: 200, text: 'ok' });
    expect((await get(open, '/livez/nope')).status).toBe(404);
    expect((await get(locked, '/healthz/ping')).status).toBe(403); // only the listed paths, not their subpaths
  });

  it('forbids /metrics without --authorization-svcconfig, with a Status body', async () => {
    const res = await get(locked, '/metrics');
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
    expect(JSON.parse(res.text).message).toContain('system:anonymous');
  });

  it('serves Prometheus metrics per controller where the path is allowed', async () => {
    await eventually(async () => /^workqueue_adds_total\{name="namespace-controller"\} [1-9]/m.test((await get(open, '/metrics')).text), 'namespace work');
    const res = await get(open, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toContain('text/plain');
    for (const family of ['workqueue_depth', 'workqueue_adds_total', 'workqueue_retries_total', 'workqueue_queue_duration_seconds', 'workqueue_work_duration_seconds', 'leader_election_master_status', 'process_cpu_seconds_total']) {
      expect(res.text).toContain(`# TYPE ${family} `);
    }
    expect(res.text).toMatch(/^workqueue_depth\{name="namespace-controller"\} 0$/m);
    expect(res.text).toMatch(/^workqueue_work_duration_seconds_count\{name="namespace-controller",result="awaitChange"\} [1-9]/m);
    // Every reconcile started was timed from its key's add.
    expect(res.text).toMatch(/^workqueue_queue_duration_seconds_count\{name="namespace-controller"\} [1-9]/m);
    expect(res.text).toMatch(/^leader_election_master_status\{name="svc-controller-manager"\} 1$/m);
    // The informers' lists and watches went through a --svc-api-qps bucket of their own (each loop has one too).
    expect(res.text).toMatch(/^rest_client_rate_limiter_duration_seconds_count\{name="shared-informers"\} [1-9]/m);
  });

  it('times reconciles from their event, and from the send time a writer put in --latency-annotation', async () => {
    await eventually(() => open.synced(), 'the caches to sync (ready)');
    const sent = /^controller_sent_to_reconcile_start_seconds_count\{name="namespace-controller"\} (\d+)$/m;
    const before = Number(sent.exec((await get(open, '/metrics')).text)?.[1] ?? 0);
    await cluster.client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'latency-stamped', annotations: { 'test.svc.io/sent': String(Date.now()) } } });
    await eventually(async () => Number(sent.exec((await get(open, '/metrics')).text)?.[1] ?? 0) > before, 'the stamped namespace reconciled');
    const text = (await get(open, '/metrics')).text;
    expect(text).toContain('# TYPE controller_sent_to_reconcile_start_seconds histogram');
    expect(text).toMatch(/^controller_event_to_reconcile_start_seconds_count\{name="namespace-controller"\} [1-9]/m);
    // The locked manager was started without the flag: no such histogram.
    expect((await locked.metrics.render()).body).not.toContain('controller_sent_to_reconcile_start_seconds');
  });

  it('answers 404 for unknown paths and 405 for writes', async () => {
    expect((await get(open, '/debug/pprof/nope')).status).toBe(404);
    expect((await get(open, '/nope')).status).toBe(403); // authorization comes before routing, as in kube
    const res = await request(`${open.serving!.url}/healthz`, { dispatcher: agent, method: 'POST', body: '' });
    expect(res.statusCode).toBe(405);
    await res.body.dump();
  });

  it('takes a CPU profile for ?seconds=N and rejects a bad N', async () => {
    const index = await get(open, '/debug/pprof/');
    expect(index.text).toContain('profile?seconds=');
    const profile = await get(open, '/debug/pprof/profile?seconds=1');
    expect(profile.status).toBe(200);
    const parsed = JSON.parse(profile.text) as { nodes: unknown[]; startTime: number; endTime: number };
    expect(parsed.nodes.length).toBeGreaterThan(0);
    expect(parsed.endTime).toBeGreaterThan(parsed.startTime);
    const bad = await get(open, '/debug/pprof/profile?seconds=0');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ reason: 'BadRequest' });
  });

  it('has no profiling endpoint with --profiling=false', async () => {
    expect((await get(locked, '/debug/pprof/')).status).toBe(404);
    expect((await get(locked, '/debug/pprof/profile?seconds=1')).status).toBe(404);
  });

  it('speaks HTTP/2 by default', async () => {
    const { body, alpnProtocol } = await http2Get(open.serving!.url, '/livez', { ca });
    expect(body).toBe('ok');
    expect(alpnProtocol).toBe('h2');
  });

  it('turns /readyz to failing while shutting down', async () => {
    const m = await cluster.manager([ANY_SECURE_PORT, '--bind-address=127.0.0.1', '--leader-elect=false']);
    const insecure = new Agent({ connect: { rejectUnauthorized: false } }); // in-memory self-signed pair: no CA to trust
    try {
      const url = `${m.serving!.url}/readyz`;
      await eventually(() => m.synced(), 'the caches to sync (ready)');
      expect((await request(url, { dispatcher: insecure }).then((r) => r.body.text()))).toBe('ok');
      await m.close();
      await expect(request(url, { dispatcher: insecure })).rejects.toThrow(); // closed after the drain
    } finally {
      await insecure.close();
    }
  });
});
