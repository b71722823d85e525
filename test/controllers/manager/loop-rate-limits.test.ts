// Each control loop has a token bucket of its own (as kube-controller-manager builds a client per
// controller): a loop that has spent its burst waits alone, and another loop's requests go
// through. Counted, not timed: with qps so small that no token comes back during the test, the
// API server's audit log says which loop's requests were admitted and under which user agent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER, Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControlLoop } from '../../../controllers/index.js';
import { startControllerManager, type ControllerManagerOptions, type LoopFactory, type RunningControllerManager } from '../../../controllers/manager/index.js';
import type { AuditEvent } from '../../../src/apiserver/audit/index.js';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { builtin, Client, loadSvcconfig } from '../../../src/client/index.js';
import { eventually } from './support.js';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Metadata
    resources:
      - group: ""
        resources: [configmaps]
    verbs: [create]
    omitStages: [RequestReceived]
  - level: None
`;

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: '1' } });

/** A loop that runs `work` once with its context's client and never ends by itself. */
const loopOf =
  (work: (client: Client) => Promise<void>): ControlLoop =>
  (ctx) =>
    new Observable((subscriber) => {
      // A request still waiting for its token when the manager closes fails there; nothing to report.
      work(ctx.client).catch(() => undefined);
      return NEVER.subscribe(subscriber);
    });

describe('a token bucket per control loop', () => {
  let dir: string;
  let auditLog: string;
  let api: RunningApiServer;
  let admin: Client;
  let manager: RunningControllerManager | undefined;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-loop-qps-'));
    auditLog = join(dir, 'audit.log');
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    api = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, `--audit-log-path=${auditLog}`, `--audit-policy-file=${join(dir, 'policy.yaml')}`]);
    admin = await Client.fromSvcconfig(api.svcconfigPath);
  });
  afterEach(async () => {
    await manager?.close();
    await admin.destroy();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function options(loops: Record<string, ControlLoop>): Promise<ControllerManagerOptions> {
    const target = await loadSvcconfig(api.svcconfigPath);
    return {
      connection: { server: target.server, token: target.token, caData: target.caData },
      contentType: 'application/json',
      // One token per 1,000 s once the burst of 2 is spent: no loop gets a third request in during the test.
      qps: 0.001,
      burst: 2,
      controllers: Object.keys(loops),
      loops: new Map(Object.entries(loops).map(([name, loop]): [string, LoopFactory] => [name, () => loop])),
      loopSettings: { concurrentNamespaceSyncs: 1, namespaceSyncPeriodMs: 0, concurrentGcSyncs: 1, minResyncPeriodMs: 0 },
      enableGarbageCollector: true,
      drainTimeoutMs: 1_000,
      startIntervalMs: 0,
    };
  }

  const exists = async (name: string) =>
    admin.get(builtin.configMaps, name, { namespace: 'default' }).then(
      () => true,
      (error: { code?: number }) => (error.code === 404 ? false : Promise.reject(error)),
    );

  it("admits another loop's requests while one loop waits for its token", async () => {
    let thirdAsked!: () => void;
    const aWaits = new Promise<void>((resolve) => (thirdAsked = resolve));
    const loopA = loopOf(async (client) => {
      await client.create(builtin.configMaps, cm('a1'));
      await client.create(builtin.configMaps, cm('a2'));
      // The request takes its place in the bucket's queue before create() returns.
      const third = client.create(builtin.configMaps, cm('a3'));
      thirdAsked();
      await third;
    });
    const loopB = loopOf(async (client) => {
      await aWaits;
      await client.create(builtin.configMaps, cm('b1'));
      await client.create(builtin.configMaps, cm('b2'));
    });
    manager = await startControllerManager(await options({ 'loop-a': loopA, 'loop-b': loopB }));

    await eventually(async () => (await exists('b1')) && (await exists('b2')), "loop B's two creates");
    expect(await exists('a1')).toBe(true);
    expect(await exists('a2')).toBe(true);
    expect(await exists('a3')).toBe(false); // still waiting in loop A's own bucket

    // Each loop's requests carry its name in the user agent, as kube-controller-manager's do.
    await new Promise((resolve) => setImmediate(resolve));
    const creates = readFileSync(auditLog, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditEvent)
      .filter((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps');
    expect(creates.map((e) => e.userAgent).sort()).toEqual(['svc-controller-manager/loop-a', 'svc-controller-manager/loop-a', 'svc-controller-manager/loop-b', 'svc-controller-manager/loop-b']);

    // The waits are observed per bucket: two admitted in each loop's.
    const metrics = (await manager.metrics.render()).body;
    expect(metrics).toMatch(/^rest_client_rate_limiter_duration_seconds_count\{name="loop-a"\} 2$/m);
    expect(metrics).toMatch(/^rest_client_rate_limiter_duration_seconds_count\{name="loop-b"\} 2$/m);
  });
});
