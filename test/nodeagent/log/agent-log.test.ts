// The agent's log: -v for every file, --vmodule raising it per file (klog's rules), and the
// daemon's own lines following both (the flags parsed as the command parses them).
import { describe, expect, it } from 'vitest';
import { agentLog, vmoduleLevel } from '../../../src/nodeagent/index.js';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startNodeAgent } from '../../../src/cli/nodeagent-run.js';

const collect = (verbosity: number, vmodule?: Record<string, number>) => {
  const lines: string[] = [];
  return { lines, log: agentLog({ verbosity, vmodule, write: (line) => lines.push(line), now: () => Date.UTC(2026, 10, 27, 7, 12, 24, 123) }) };
};

describe('--vmodule patterns', () => {
  it('match the base name without "/" and the whole path with it; * stops at "/"; the first match wins', () => {
    const vmodule = { 'eviction-*': 4, 'nodeagent/images/*': 3, '*': 1 };
    expect(vmoduleLevel(vmodule, 'nodeagent/eviction/eviction-manager')).toBe(4);
    expect(vmoduleLevel(vmodule, 'nodeagent/images/image-manager')).toBe(3);
    expect(vmoduleLevel(vmodule, 'cli/nodeagent-run')).toBe(1);
    expect(vmoduleLevel({ 'nodeagent/*': 2 }, 'nodeagent/images/image-manager')).toBeUndefined();
    expect(vmoduleLevel({ 'image-manage?': 2 }, 'nodeagent/images/image-manager')).toBe(2);
    expect(vmoduleLevel({ 'image.manager': 2 }, 'nodeagent/images/image-manager')).toBeUndefined();
  });
});

describe('the agent log', () => {
  it('writes a file line at level n when n <= max(-v, its --vmodule level), with the klog header', () => {
    const { lines, log } = collect(1, { 'eviction-manager': 4 });
    const eviction = log.forFile('nodeagent/eviction/eviction-manager');
    const images = log.forFile('nodeagent/images/image-manager');
    eviction.info(4, 'a pass');
    eviction.info(5, 'too verbose');
    images.info(1, 'pulled');
    images.info(2, 'too verbose');
    images.warn('a warning is always written');
    expect(lines).toEqual([
      `I1127 07:12:24.123000 ${process.pid} eviction-manager] a pass`,
      `I1127 07:12:24.123000 ${process.pid} image-manager] pulled`,
      `W1127 07:12:24.123000 ${process.pid} image-manager] a warning is always written`,
    ]);
    expect(eviction.v(4)).toBe(true);
    expect(images.v(2)).toBe(false);
  });

  it('never lowers a file below -v', () => {
    const { lines, log } = collect(3, { 'image-manager': 0 });
    log.forFile('nodeagent/images/image-manager').info(3, 'still written');
    expect(lines).toHaveLength(1);
  });
});

describe('the daemon', () => {
  const run = async (args: string[]) => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const prepared = prepareNodeAgent(['--fail-swap-on=false', '--fail-cgroupv1=false', '--container-runtime-endpoint', 'unix:///nonexistent/containerd.sock', ...args], io, { swapDevices: 0, cgroupVersion: 2 });
    if (typeof prepared === 'number') throw new Error(`options refused: ${lines.join('\n')}`);
    const kernel = { values: new Map<string, number>([['kernel.panic', 0]]) };
    await startNodeAgent(prepared, io, {
      runtimeWaitMs: 50,
      sysctls: { read: (name) => kernel.values.get(name) ?? { 'vm.overcommit_memory': 1, 'vm.panic_on_oom': 0, 'kernel.panic_on_oops': 1, 'kernel.keys.root_maxkeys': 1000000, 'kernel.keys.root_maxbytes': 25000000 }[name]!, write: (name, value) => kernel.values.set(name, value) },
    }).catch(() => undefined);
    return lines;
  };

  it('gives --vmodule per file: the kernel-tunables lines at -v 2 only where a pattern names that file', async () => {
    const tunables = (lines: string[]) => lines.filter((line) => line.includes(' kernel-tunables] updating kernel flag kernel.panic'));
    expect(tunables(await run([]))).toHaveLength(0);
    expect(tunables(await run(['--vmodule', 'kernel-tunables=2']))).toHaveLength(1);
    expect(tunables(await run(['--vmodule', 'kernel-*=1']))).toHaveLength(0);
    expect(tunables(await run(['--vmodule', 'nodeagent/node/*=2']))).toHaveLength(1);
    expect(tunables(await run(['-v', '2']))).toHaveLength(1);
  });

  it('prints no not-built notice for --vmodule', () => {
    const lines: string[] = [];
    prepareNodeAgent(['--fail-swap-on=false', '--fail-cgroupv1=false', '--vmodule', 'eviction-*=4', '--protect-kernel-defaults'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, { swapDevices: 0, cgroupVersion: 2 });
    expect(lines.filter((line) => line.includes('not built') || line.includes('neither checked'))).toEqual([]);
  });
});
