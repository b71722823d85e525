// Terms of leadership end with a bounded drain: reconciles in flight finish before the manager
// stops (up to --controller-shutdown-timeout), a loop that ignores the stop signal is cut at
// the timeout, and a lost lease drains the loops and campaigns again.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Observable, throwError } from 'rxjs';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controller, type ControlLoop } from '../../../controllers/index.js';
import { RequestAuth, startControllerManager, type ControllerManagerOptions, type ControllerName, type LoopFactory } from '../../../controllers/manager/index.js';
import { ensurePki } from '../../../src/pki/index.js';
import { builtin, loadSvcconfig } from '../../../src/client/index.js';
import { ANY_SECURE_PORT, eventually, sleep, startCluster, type Cluster } from './support.js';
import { scratchDir } from '../../support/scratch.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: '1' } });

describe('terms of leadership', () => {
  let cluster: Cluster;
  beforeEach(async () => {
    cluster = await startCluster();
  });
  afterEach(async () => {
    await cluster.close();
  });

  async function options(loop: ControlLoop, extra: Partial<ControllerManagerOptions> = {}): Promise<ControllerManagerOptions> {
    const target = await loadSvcconfig(cluster.api.svcconfigPath);
    const name: ControllerName = 'namespace-controller';
    const factory: LoopFactory = () => loop;
    return {
      connection: { server: target.server, token: target.token, caData: target.caData },
      contentType: 'application/json',
      qps: 100,
      burst: 100,
      controllers: [name],
      loops: new Map([[name, factory]]),
      loopSettings: { concurrentNamespaceSyncs: 1, namespaceSyncPeriodMs: 0, concurrentGcSyncs: 1, minResyncPeriodMs: 0 },
      enableGarbageCollector: true,
      drainTimeoutMs: 20_000,
      startIntervalMs: 0,
      ...extra,
    };
  }

  it('lets a reconcile in flight finish before close resolves', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loop: ControlLoop = (ctx) =>
      controller({
        ...ctx.controllerDefaults('namespace-controller'),
        name: 'namespace-controller',
        for: ctx.informers.informer(builtin.configMaps).events$,
        reconcile: async (key) => {
          started.push(key);
          await gate;
          finished.push(key);
        },
      });
    const m = await startControllerManager(await options(loop));
    await cluster.client.create(builtin.configMaps, cm('draining'));
    await eventually(() => started.includes('default/draining'), 'the reconcile to start');
    let closed = false;
    const closing = m.close().then(() => (closed = true));
    await sleep(300);
    expect(closed).toBe(false); // still draining
    release();
    await closing;
    expect(finished).toEqual(['default/draining']);
  });

  it('cuts a loop that ignores the stop signal when the shutdown timeout is up', async () => {
    let subscribed = 0;
    let tornDown = 0;
    const stubborn: ControlLoop = () =>
      new Observable(() => {
        subscribed++;
        return () => void tornDown++;
      });
    const m = await startControllerManager(await options(stubborn, { drainTimeoutMs: 300 }));
    await m.firstTerm;
    expect(subscribed).toBe(1);
    await m.close();
    expect(tornDown).toBe(1);
  });

  it('drains when another holder takes the lease, and leads again with a fresh term once it expires', async () => {
    let starts = 0;
    let stops = 0;
    const loop: ControlLoop = (ctx) =>
      new Observable(() => {
        starts++;
        const s = ctx.stop$.subscribe(() => void stops++);
        return () => s.unsubscribe();
      });
    const m = await startControllerManager(
      await options(loop, {
        drainTimeoutMs: 200,
        election: { lease: { namespace: 'svc-system', name: 'terms' }, leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 200 },
      }),
    );
    try {
      await m.firstTerm;
      expect(starts).toBe(1);
      // Another candidate writes itself into the Lease, fresh: the manager must stop leading.
      const lease = await cluster.client.get(builtin.leases, 'terms', { namespace: 'svc-system' });
      const now = new Date().toISOString().replace(/Z$/, '000Z');
      await cluster.client.update(builtin.leases, { ...lease, spec: { ...lease.spec, holderIdentity: 'thief', renewTime: now, leaseDurationSeconds: 2 } });
      await eventually(() => !m.leading() && stops === 1, 'the manager to step down and drain');
      // The thief never renews: after its lease expires the manager leads again, in a new term.
      await eventually(() => m.leading() && starts === 2, 'a second term');
      expect(await cluster.holder('terms')).toBe(m.identity);
    } finally {
      await m.close();
    }
  });

  it('waits --controller-start-interval between starting one loop and the next', async () => {
    const started: string[] = [];
    const loop = (name: string): LoopFactory => () => () => new Observable(() => void started.push(name));
    const m = await startControllerManager({
      ...(await options(() => new Observable())),
      controllers: ['garbage-collector-controller', 'namespace-controller'],
      loops: new Map([
        ['garbage-collector-controller', loop('gc')],
        ['namespace-controller', loop('ns')],
      ]),
      startIntervalMs: 60_000,
      drainTimeoutMs: 100,
    });
    await m.firstTerm;
    await sleep(300);
    expect(started).toEqual(['gc']); // the next one is a minute away
    await m.close();
    expect(started).toEqual(['gc']); // and never starts once the term has ended
  });

  it('reports a failed loop on /healthz and /readyz until the next term', async () => {
    const { cert, key } = await ensurePki(scratchDir('svc-cm-terms-'), { dns: ['localhost'], ips: ['127.0.0.1'] });
    const m = await startControllerManager({
      ...(await options(() => throwError(() => new Error('broken on purpose')))),
      serving: {
        bindAddress: '127.0.0.1',
        port: 0,
        tls: { cert, key },
        http2: false,
        profiling: false,
        auth: new RequestAuth({ alwaysAllowPaths: ['/healthz', '/readyz'] }),
      },
    });
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    try {
      await m.firstTerm;
      for (const endpoint of ['healthz', 'readyz']) {
        const res = await request(`${m.serving!.url}/${endpoint}?verbose`, { dispatcher: agent });
        const text = await res.body.text();
        expect(res.statusCode).toBe(500);
        expect(text).toContain('[-]controllers failed: namespace-controller: broken on purpose');
        expect(text).toContain(`${endpoint} check failed`);
      }
    } finally {
      await agent.close();
      await m.close();
    }
  });

  it('fails to start, and never campaigns, when its secure port is taken', async () => {
    const { port } = (await cluster.manager([ANY_SECURE_PORT, '--bind-address=127.0.0.1', '--leader-elect=false'])).serving!;
    await expect(cluster.manager([`--secure-port=${port}`, '--bind-address=127.0.0.1', '--leader-elect-resource-name=never'])).rejects.toThrow('the address is in use');
    await sleep(300);
    expect(await cluster.holder('never')).toBeUndefined();
  });

  it('runs no garbage collector with --enable-garbage-collector=false, and reports unbuilt controllers', async () => {
    const m = await startControllerManager({
      ...(await options(() => new Observable())),
      loops: undefined,
      controllers: ['garbage-collector-controller', 'namespace-controller', 'node-route-controller'],
      enableGarbageCollector: false,
    });
    try {
      expect(m.running).toEqual(['namespace-controller']);
      expect(m.notBuilt).toEqual(['node-route-controller']);
    } finally {
      await m.close();
    }
  });
});
