// PID pressure on this host, with a real agent, containerd and API server: `pid.available=100%`
// is always met (fewer pids are free than pid_max), so PIDPressure holds and the pods go one per
// pass, lower priority first (no per-pod process count is read: priority alone ranks them).
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin, Client } from '../../../src/client/index.js';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startNodeAgent, type RunningNodeAgent } from '../../../src/cli/nodeagent-run.js';
import type { EvictionPassResult } from '../../../src/nodeagent/index.js';
import { eventually } from '../../controllers/support.js';
import { startApiServer, type RunningApiServer } from '../../support/api-server.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { agentDirs, freePort, sleeper, uniqueNodeName, unmountUnder, writeAgentConfig } from '../daemon/support.js';

const dir = mkdtempSync('/tmp/svc-evict-pid-');
const nodeName = uniqueNodeName('evictpid');
let containerd: RunningContainerd;
let server: RunningApiServer;
let client: Client;
let agent: RunningNodeAgent | undefined;
const passes: EvictionPassResult[] = [];
const log: string[] = [];

const withPriority = (name: string, priority: number): Pod => {
  const base = sleeper(name, nodeName);
  return { ...base, spec: { ...base.spec, priority } };
};

beforeAll(async () => {
  containerd = await startContainerd();
  server = await startApiServer({ dataDir: join(dir, 'api'), storage: 'sqlite', bindAddress: '127.0.0.1', securePort: 0 });
  client = await Client.fromSvcconfig(server.svcconfigPath);
  await client.create(builtin.pods, withPriority('important', 500), { namespace: 'default' });
  await client.create(builtin.pods, withPriority('expendable', 1), { namespace: 'default' });
  const dirs = agentDirs(join(dir, 'node'));
  writeAgentConfig(dirs.config, { endpoint: containerd.endpoint, port: await freePort(), extra: { evictionHard: { 'pid.available': '100%' } } });
  const io = { out: (line: string) => log.push(line), err: (line: string) => log.push(line) };
  const startup = prepareNodeAgent(['--config', dirs.config, '--svcconfig', server.svcconfigPath, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', nodeName], io);
  if (typeof startup === 'number') throw new Error(`the agent's options were refused:\n${log.join('\n')}`);
  agent = await startNodeAgent(startup, io, { evictionMonitoringIntervalMs: 1_000, onEvictionPass: (result) => passes.push(result) });
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await client?.close();
  await server?.close();
  await containerd?.stop();
  unmountUnder(dir);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('pid pressure eviction with real containers', () => {
  it('evicts the lower priority pod first, with the pids signal in its message, and sets PIDPressure and its taint', async () => {
    const evicted = () => passes.flatMap((p) => (p.type === 'evicted' ? [p.pod.metadata.name] : []));
    await eventually(() => evicted().length === 2, `two evictions:\n${log.slice(-20).join('\n')}`, 90_000);
    expect(evicted()).toEqual(['expendable', 'important']);
    await eventually(async () => (await client.get(builtin.pods, 'expendable', { namespace: 'default' })).status?.reason === 'Evicted', 'expendable Evicted', 30_000);
    const status = (await client.get(builtin.pods, 'expendable', { namespace: 'default' })).status!;
    expect(status.phase).toBe('Failed');
    expect(status.message).toMatch(/^The node was low on resource: pids\. Threshold quantity: \d+, available: \d+\. $/);
    await eventually(async () => {
      const node = await client.get(builtin.nodes, nodeName);
      return (
        node.status?.conditions?.find((c) => c.type === 'PIDPressure')?.status === 'True' &&
        (node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/pid-pressure' && t.effect === 'NoSchedule')
      );
    }, 'PIDPressure and its taint', 30_000);
  }, 120_000);
});
