// Node-pressure eviction on this host: a real node agent (in this process, its housekeeping
// interval shortened), a private containerd and a real API server. The hard memory threshold is
// set 1 GiB above what the host has free, so MemoryPressure holds for the whole suite and the
// agent evicts one pod per pass; the pods differ in QoS and priority, so the order is the
// ranking's: BestEffort first, then the Burstable pod, then the Guaranteed one of high priority.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

const dir = mkdtempSync('/tmp/svc-evict-');
const nodeName = uniqueNodeName('evict');
const INTERVAL_MS = 1_000;
let containerd: RunningContainerd;
let server: RunningApiServer;
let client: Client;
let agent: RunningNodeAgent | undefined;
let agentArgs: string[];
const passes: EvictionPassResult[] = [];
const log: string[] = [];

const memAvailable = (): number => Number(/^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;

/** A sleeper with a priority and, for Burstable and Guaranteed, memory and cpu resources. */
function pod(name: string, priority: number, resources?: { requests: Record<string, string>; limits?: Record<string, string> }): Pod {
  const base = sleeper(name, nodeName);
  const container = { ...base.spec.containers[0]!, ...(resources ? { resources } : {}) };
  return { ...base, spec: { ...base.spec, priority, containers: [container] } };
}

beforeAll(async () => {
  containerd = await startContainerd();
  server = await startApiServer({ dataDir: join(dir, 'api'), storage: 'sqlite', bindAddress: '127.0.0.1', securePort: 0 });
  client = await Client.fromSvcconfig(server.svcconfigPath);
  // The pods exist before the agent starts, so its first passes find all three.
  await client.create(builtin.pods, pod('guaranteed-high', 1000, { requests: { memory: '64Mi', cpu: '10m' }, limits: { memory: '64Mi', cpu: '10m' } }), { namespace: 'default' });
  await client.create(builtin.pods, pod('burstable-mid', 100, { requests: { memory: '32Mi' } }), { namespace: 'default' });
  await client.create(builtin.pods, pod('besteffort-low', 0), { namespace: 'default' });
  const dirs = agentDirs(join(dir, 'node'));
  const threshold = Math.ceil((memAvailable() + 1024 ** 3) / 1024 ** 2);
  writeAgentConfig(dirs.config, {
    endpoint: containerd.endpoint,
    port: await freePort(),
    extra: { evictionHard: { 'memory.available': `${threshold}Mi` }, evictionPressureTransitionPeriod: '5s' },
  });
  const io = { out: (line: string) => log.push(line), err: (line: string) => log.push(line) };
  agentArgs = ['--config', dirs.config, '--svcconfig', server.svcconfigPath, '--root-dir', dirs.rootDir, '--cert-dir', dirs.certDir, '--hostname-override', nodeName];
  const startup = prepareNodeAgent(agentArgs, io);
  if (typeof startup === 'number') throw new Error(`the agent's options were refused:\n${log.join('\n')}`);
  agent = await startNodeAgent(startup, io, { evictionMonitoringIntervalMs: INTERVAL_MS, onEvictionPass: (result) => passes.push(result) });
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await client?.close();
  await server?.close();
  await containerd?.stop();
  unmountUnder(dir);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

const evicted = () => passes.flatMap((p) => (p.type === 'evicted' ? [p.pod.metadata.name] : []));
const getPod = (name: string) => client.get(builtin.pods, name, { namespace: 'default' });

describe('node-pressure eviction with real containers', () => {
  it('evicts the pods one per pass in the ranking order: BestEffort, then Burstable, then the Guaranteed high-priority one', async () => {
    await eventually(() => evicted().length === 3, `three evictions (so far ${evicted().join(', ')}):\n${log.slice(-20).join('\n')}`, 90_000);
    expect(evicted()).toEqual(['besteffort-low', 'burstable-mid', 'guaranteed-high']);
    // One pod per pass: every pass that evicted names one pod, and each was a hard memory eviction with 1 s grace.
    for (const pass of passes.filter((p) => p.type === 'evicted')) {
      expect(pass).toMatchObject({ signal: 'memory.available', gracePeriodSeconds: 1 });
    }
    // Nothing is left to evict: later passes find no candidate.
    await eventually(() => passes.at(-1)?.type === 'no-candidate', 'a pass with no candidate left', 10_000);
  }, 120_000);

  it('marks each evicted pod Failed, reason Evicted, with the signal in the message, a DisruptionTarget condition and an Evicted event; its object stays', async () => {
    for (const name of ['besteffort-low', 'burstable-mid', 'guaranteed-high']) {
      await eventually(async () => (await getPod(name)).status?.reason === 'Evicted', `${name} Evicted`, 30_000);
      const status = (await getPod(name)).status!;
      expect(status.phase).toBe('Failed');
      expect(status.message).toMatch(/^The node was low on resource: memory\. Threshold quantity: \d+Mi, available: \S+\. /);
      expect(status.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'TerminationByKubelet' });
      // Its sandbox is gone from the runtime.
      const uid = (await getPod(name)).metadata.uid;
      const sandboxes = (await containerd.cri.listPodSandbox({})).items.filter((s) => s.metadata?.uid === uid);
      expect(sandboxes).toEqual([]);
    }
    const evictedEvents = async () =>
      (await client.list(builtin.coreEvents, { namespace: 'default' })).items.filter((e) => e.reason === 'Evicted' && e.type === 'Warning' && /low on resource: memory/.test(String(e.message ?? '')));
    await eventually(async () => (await evictedEvents()).length === 3, 'three Evicted events', 30_000).catch(async (error: unknown) => {
      const all = (await client.list(builtin.coreEvents, { namespace: 'default' })).items.map((e) => `${String(e.type)} ${String(e.reason)} ${String(e.message)}`);
      throw new Error(`${(error as Error).message}; events:\n${all.join('\n')}`);
    });
  }, 90_000);

  it('a restarted agent leaves the evicted pods ended: no sandbox again, still Failed/Evicted, nothing evicted twice', async () => {
    await agent?.close();
    passes.length = 0;
    const startup = prepareNodeAgent(agentArgs, { out: (line: string) => log.push(line), err: (line: string) => log.push(line) });
    if (typeof startup === 'number') throw new Error('refused');
    agent = await startNodeAgent(startup, { out: (line: string) => log.push(line), err: (line: string) => log.push(line) }, { evictionMonitoringIntervalMs: INTERVAL_MS, onEvictionPass: (result) => passes.push(result) });
    await eventually(() => passes.length >= 3, 'three passes of the new agent', 30_000);
    expect(evicted()).toEqual([]);
    const uids = new Set(await Promise.all(['besteffort-low', 'burstable-mid', 'guaranteed-high'].map(async (name) => (await getPod(name)).metadata.uid)));
    expect((await containerd.cri.listPodSandbox({})).items.filter((s) => uids.has(s.metadata?.uid))).toEqual([]);
    for (const name of ['besteffort-low', 'burstable-mid', 'guaranteed-high']) {
      expect((await getPod(name)).status).toMatchObject({ phase: 'Failed', reason: 'Evicted' });
    }
  }, 90_000);

  it('sets MemoryPressure on the Node and the memory-pressure NoSchedule taint', async () => {
    await eventually(async () => {
      const node = await client.get(builtin.nodes, nodeName);
      const pressure = node.status?.conditions?.find((c) => c.type === 'MemoryPressure')?.status === 'True';
      const taint = (node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/memory-pressure' && t.effect === 'NoSchedule');
      return pressure && taint;
    }, 'MemoryPressure and its taint on the Node', 30_000);
    const node = await client.get(builtin.nodes, nodeName);
    expect(node.status?.conditions?.find((c) => c.type === 'DiskPressure')?.status).toBe('False');
    expect((node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/disk-pressure')).toBe(false);
  }, 60_000);
});
