/**
 * svc-scheduler's command line: its option table (defaults, checks across options) and a real run
 * from a svcconfig against a real API server, with its health port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFlags } from '../../src/cli/flags.js';
import { main, startScheduler, type RunningScheduler } from '../../src/cli/scheduler-command.js';
import { schedulerFlags } from '../../src/cli/scheduler-flags.js';
import { builtin, writeSvcconfig } from '../../src/client/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { boundNode, node, pod } from '../controllers/scheduler/support.js';
import { freePort } from '../support/free-port.js';

const values = (argv: string[]) => {
  const parsed = parseFlags(schedulerFlags, argv);
  if (parsed.help) throw new Error('help');
  return parsed.values;
};

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe('svc-scheduler options', () => {
  it('has kube-scheduler\'s defaults', () => {
    expect(values([])).toMatchObject({
      leaderElect: true,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2000,
      leaderElectResourceName: 'svc-scheduler',
      leaderElectResourceNamespace: 'svc-system',
      svcApiQps: 50,
      svcApiBurst: 100,
      securePort: 10259,
      percentageOfNodesToScore: 0,
      v: 0,
    });
  });

  it.each([
    [['--master', 'https://x', '--leader-elect-renew-deadline', '20s'], '--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration'],
    [['--master', 'https://x', '--leader-elect-retry-period', '10s'], '--leader-elect-retry-period must be shorter than --leader-elect-renew-deadline'],
    [[], 'one of --svcconfig or --master is required'],
    [['--master', 'https://x', '--percentage-of-nodes-to-score', '101'], 'must be between 0 and 100'],
    [['--master', 'https://x', '--svc-api-qps', '0'], 'must be positive'],
  ])('rejects %j with exit code 2', async (argv, message) => {
    const c = capture();
    expect(await main(argv, c.io)).toBe(2);
    expect(c.err.join('\n')).toContain(message);
  });

  it('prints --help', async () => {
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out.join('\n')).toContain('--leader-elect-resource-namespace');
  });
});

describe('svc-scheduler running', () => {
  let s: TestServer | undefined;
  let running: RunningScheduler | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await running?.close();
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('schedules from a svcconfig, leads on its Lease, and answers /healthz and /readyz over HTTPS', async () => {
    s = await startTestServer('memory', { listen: true });
    dir = mkdtempSync(join(tmpdir(), 'svc-scheduler-'));
    const svcconfig = join(dir, 'admin.svcconfig');
    await writeSvcconfig(svcconfig, { server: s.url!, token: TOKEN, name: 'test' });
    const port = await freePort();
    const c = capture();
    running = await startScheduler(values(['--svcconfig', svcconfig, '--secure-port', String(port), '--bind-address', '127.0.0.1', '--leader-elect-retry-period', '100ms']), { io: c.io });
    expect(running.healthUrl).toBe(`https://127.0.0.1:${port}`);
    const { Client } = await import('../../src/client/index.js');
    const client = new Client({ server: s.url!, token: TOKEN });
    try {
      await client.create(builtin.nodes, node('n1'));
      await client.create(builtin.pods, pod('p'));
      expect(await boundNode(client, 'p')).toBe('n1');
      expect(running.leading()).toBe(true);
      const lease = await client.get(builtin.leases, 'svc-scheduler', { namespace: 'svc-system' });
      expect(lease.spec?.holderIdentity).toBe(running.identity);
    } finally {
      await client.destroy();
    }
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    for (const path of ['/healthz', '/readyz']) {
      const res = await request(`${running.healthUrl}${path}`, { dispatcher });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('ok');
    }
    await dispatcher.close();
  });

  it('releases its Lease when closed, and close() resolves after the release was answered', async () => {
    s = await startTestServer('memory', { listen: true });
    dir = mkdtempSync(join(tmpdir(), 'svc-scheduler-'));
    const svcconfig = join(dir, 'admin.svcconfig');
    await writeSvcconfig(svcconfig, { server: s.url!, token: TOKEN, name: 'test' });
    const { Client } = await import('../../src/client/index.js');
    const client = new Client({ server: s.url!, token: TOKEN });
    try {
      running = await startScheduler(values(['--svcconfig', svcconfig, '--secure-port', '0', '--leader-elect-retry-period', '100ms']), { io: capture().io });
      const holder = async () => (await client.get(builtin.leases, 'svc-scheduler', { namespace: 'svc-system' }).catch(() => undefined))?.spec?.holderIdentity;
      while ((await holder()) !== running.identity) await new Promise((r) => setTimeout(r, 20));
      await running.close();
      running = undefined;
      expect(await holder()).toBeFalsy(); // released before close() resolved: a successor takes over at once
    } finally {
      await client.destroy();
    }
  });
});
