// `svc hollow-nodes` (issue #26): the command as a user runs it — a child process from a svcconfig
// against the test kit's API server — registers its nodes with the simulated marker, says in its
// log that the containers are simulated, and leaves on SIGTERM with status 0; bad flags are usage
// errors that start nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_NODE_LABEL } from '../../src/api/index.js';
import { hollowNodes, hollowNodesFlags, startHollowNodes } from '../../src/cli/hollow-nodes-command.js';
import { parseFlags } from '../../src/cli/flags.js';
import { builtin, Client, writeSvcconfig } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';
import { spawnUp } from '../support/svc-up.js';

const SVC = join(import.meta.dirname, '../../src/cli/svc.ts');
let cluster: TestCluster;
let dir: string;
let svcconfig: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-hollow-cli-'));
  cluster = await startTestCluster();
  svcconfig = join(dir, 'admin.svcconfig');
  await writeSvcconfig(svcconfig, { server: cluster.url, caData: cluster.caPem, token: cluster.token, name: 'test' });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe('svc hollow-nodes', () => {
  it.each([
    [['--count', '0'], 'must be between 1 and 100000'],
    [['--start-failure-rate', '1.5'], 'must be between 0 and 1'],
    [['--node-cidr', '10.0.0.0/31'], 'not an IPv4 CIDR'],
    [['--memory', 'lots'], 'not a quantity of bytes'],
    [['--first-index', '-1'], 'must be between 0 and 99999'],
  ])('rejects %j as a usage error', async (argv, message) => {
    const c = capture();
    expect(await hollowNodes(argv, c.io)).toBe(2);
    expect(c.err.join('\n')).toContain(message);
    expect((await cluster.client.list(builtin.nodes)).items).toHaveLength(0);
  });

  it('refuses a fleet larger than its open-files limit allows, before registering a node', async () => {
    // `ulimit -n` in sh sets the soft and the hard limit: Node.js cannot raise it past 512 then.
    const child = spawn('sh', ['-c', 'ulimit -n 512 && exec "$0" "$@"', process.execPath, '--import', 'tsx', SVC, 'hollow-nodes', '--svcconfig', svcconfig, '--count', '1000', '--name-prefix', 'toomany-'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    // 1,000 watches + the pods and Events pools (64 each) + the heartbeat pool (1,000 ÷ 10) + 64.
    expect(stderr).toMatch(/1000 hollow nodes need about 1292 open files \(a pod watch socket each, 228 for the request pools\) and this process may open 512: raise the limit \(ulimit -n/);
    expect((await cluster.client.list(builtin.nodes)).items.filter((node) => node.metadata.name?.startsWith('toomany-'))).toEqual([]);
  }, 60_000);

  it('runs its nodes until SIGTERM, each labelled simulated, and says so in its log', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', SVC, 'hollow-nodes', '--svcconfig', svcconfig, '--count', '3', '--name-prefix', 'cli-', '--start-rate', '0', '--root-dir', join(dir, 'nodes')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await eventually(async () => {
        const nodes = (await cluster.client.list(builtin.nodes, { labelSelector: `${SIMULATED_NODE_LABEL}=true` })).items;
        return nodes.length === 3 && nodes.every((node) => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      }, 'three Ready hollow nodes', 60_000);
      const names = (await cluster.client.list(builtin.nodes)).items.map((node) => node.metadata.name).sort();
      expect(names).toEqual(['cli-00000', 'cli-00001', 'cli-00002']);
      await eventually(() => stdout.includes('3 hollow nodes started'), 'the started line');
      expect(stderr).toMatch(/containers are SIMULATED \(svc-simulated runtime/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);

  it('splits one fleet over two processes with --first-index: distinct names, InternalIPs and pod ranges', async () => {
    // Two fleets as two processes would run them (bench:density's HOLLOW_PROCS): same prefix and
    // ranges, the second starting where the first ends.
    const start = async (argv: string[]) => {
      const parsed = parseFlags(hollowNodesFlags, [`--svcconfig=${svcconfig}`, '--name-prefix=split-', '--start-rate=0', `--root-dir=${join(dir, `split-${argv.join('')}`)}`, ...argv]);
      if (parsed.help) throw new Error('unreachable: no --help given');
      return startHollowNodes(parsed.values, capture().io);
    };
    const first = await start(['--count=2']);
    const second = await start(['--count=1', '--first-index=2']);
    try {
      expect([...first.nodes, ...second.nodes].map((node) => node.nodeName)).toEqual(['split-00000', 'split-00001', 'split-00002']);
      await eventually(async () => {
        const nodes = (await cluster.client.list(builtin.nodes)).items.filter((node) => node.metadata.name?.startsWith('split-'));
        return nodes.length === 3 && nodes.every((node) => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      }, 'three Ready nodes from two fleets', 60_000);
      const nodes = (await cluster.client.list(builtin.nodes)).items.filter((node) => node.metadata.name?.startsWith('split-'));
      const internalIp = (name: string) => nodes.find((node) => node.metadata.name === name)?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      expect(['split-00000', 'split-00001', 'split-00002'].map(internalIp)).toEqual(['10.250.0.1', '10.250.0.2', '10.250.0.3']);
      const sandbox = async (fleet: typeof first, index: number) => {
        const node = fleet.nodes[index]!;
        const { podSandboxId } = (await node.runtime.handle('RuntimeService', 'RunPodSandbox', { config: { metadata: { name: 'p', namespace: 'default', uid: `uid-${node.nodeName}`, attempt: 0 } } })) as { podSandboxId: string };
        return ((await node.runtime.handle('RuntimeService', 'PodSandboxStatus', { podSandboxId })) as { status: { network?: { ip?: string } } }).status.network?.ip;
      };
      expect(await sandbox(second, 0)).toMatch(/^10\.128\.2\./);
      expect(await sandbox(first, 1)).toMatch(/^10\.128\.1\./);
    } finally {
      await second.close();
      await first.close();
    }
  }, 90_000);

  it('runs in svc up with --hollow-nodes, which says the containers are simulated', async () => {
    const data = join(dir, 'up');
    const up = spawnUp(data, ['--disable-agent', '--disable-dashboard', '--hollow-nodes=2']);
    try {
      const line = await up.line((l) => l.startsWith('hollow nodes:'));
      expect(line).toBe('hollow nodes: 2 (hollow-00000 .. hollow-00001), containers SIMULATED (svc-simulated runtime)');
      await up.line((l) => l.startsWith('ready in'));
      const admin = await Client.fromSvcconfig(join(data, 'admin.svcconfig'));
      try {
        await eventually(async () => {
          const nodes = (await admin.list(builtin.nodes, { labelSelector: `${SIMULATED_NODE_LABEL}=true` })).items;
          return nodes.length === 2 && nodes.every((node) => node.status?.nodeInfo?.containerRuntimeVersion?.startsWith('svc-simulated://'));
        }, 'two hollow nodes in svc up', 60_000);
      } finally {
        await admin.close();
      }
    } finally {
      up.child.kill('SIGTERM');
    }
    expect(await up.exited).toBe(0);
  }, 180_000);
});
