// `svc proxy` as an operator runs it: it syncs its chains against a cluster, removes them when
// stopped, and --cleanup removes what a proxy of that prefix left behind. (On the host's tables,
// with prefixes of this test's own and no Service: it adds chains and jumps that match nothing.)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxy } from '../../src/cli/proxy-command.js';
import { writeSvcconfig } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

const REPO = join(import.meta.dirname, '..', '..');
const prefix = `P${process.pid % 100000}-`;
let cluster: TestCluster;
let dir: string;
const ours = (p: string) => (spawnSync('iptables-save', [], { encoding: 'utf8' }).stdout ?? '').split('\n').filter((line) => line.includes(p));
const svc = (args: string[]) => spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'proxy', ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  cluster = await startTestCluster();
  dir = mkdtempSync(join(tmpdir(), 'svc-proxy-cmd-'));
  await writeSvcconfig(join(dir, 'admin.svcconfig'), { server: cluster.url, caData: cluster.caPem, token: cluster.token, name: 'test' });
});
afterAll(async () => {
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'proxy', '--cleanup', `--chain-prefix=${prefix}`], { cwd: REPO });
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('svc proxy', () => {
  it('syncs its chains, and removes every one when stopped', async () => {
    const child = svc([`--svcconfig=${join(dir, 'admin.svcconfig')}`, '--cluster-cidr=10.251.7.0/24', `--chain-prefix=${prefix}`]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('service rules synced') && resolve());
      void exited.then((code) => reject(new Error(`svc proxy exited ${code}`)));
    });
    expect(ours(prefix)).toEqual(expect.arrayContaining([`:${prefix}SERVICES - [0:0]`, `:${prefix}NODEPORTS - [0:0]`, `:${prefix}REJECT - [0:0]`]));
    expect(ours(prefix).some((line) => line.startsWith('-A PREROUTING') && line.includes('10.251.7.0/24'))).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(ours(prefix)).toEqual([]);
  }, 60_000);

  it('--cleanup removes what a proxy of that prefix left, and refuses a bad prefix', async () => {
    const left = `${prefix}SVC-LEFTOVER`;
    expect(spawnSync('iptables', ['-w', '5', '-t', 'nat', '-N', left]).status).toBe(0);
    const cleanup = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'proxy', '--cleanup', `--chain-prefix=${prefix}`], { cwd: REPO, encoding: 'utf8' });
    expect(cleanup.status, cleanup.stderr).toBe(0);
    expect(ours(prefix)).toEqual([]);
    const err: string[] = [];
    expect(await proxy(['--cleanup', '--chain-prefix=much-too-long-prefix'], { out: () => {}, err: (line) => err.push(line) })).toBe(2);
    expect(err.join('\n')).toContain('--chain-prefix');
  }, 60_000);

  // In-process: the flag's rule is the command's own (the spawned tests above cover its exit codes
  // end to end); six tsx start-ups in a row cost over a minute on a loaded machine.
  it('takes an IPv4 and an IPv6 --cluster-cidr (dual stack) and refuses anything else with exit 2', async () => {
    const run = async (cidr: string) => {
      const err: string[] = [];
      const status = await proxy(['--cleanup', `--chain-prefix=${prefix}`, `--cluster-cidr=${cidr}`], { out: () => {}, err: (line) => err.push(line) });
      return { status, stderr: err.join('\n') };
    };
    const dual = await run('10.251.7.0/24,fd00:251:7::/64');
    expect(dual.status, dual.stderr).toBe(0);
    for (const bad of ['fd00:251:7::/64', '10.251.7.0/24,10.252.0.0/24', '10.251.7.0/33', '10.251.7.0/24,fd00::/64,fd01::/64', 'nonsense']) {
      const refused = await run(bad);
      expect(refused.status, bad).toBe(2);
      expect(refused.stderr, bad).toContain('--cluster-cidr');
    }
  });
});
