// --protect-kernel-defaults and the tunables the agent sets without it: the check against this
// host's real /proc/sys (read only), and the agent's start refused or allowed on a described kernel
// (a directory of sysctl files, so the host's kernel is never changed).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyKernelTunables, KERNEL_TUNABLES, procSysctls, setupKernelTunables, type SysctlAccess } from '../../../src/nodeagent/index.js';
import { prepareNodeAgent } from '../../../src/cli/nodeagent-command.js';
import { startNodeAgent } from '../../../src/cli/nodeagent-run.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A /proc/sys of the tunables with these values (the kubelet's where not given). */
function kernel(values: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-kernel-'));
  dirs.push(root);
  for (const [name, expected] of Object.entries(KERNEL_TUNABLES)) {
    const file = join(root, ...name.split('.'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${values[name] ?? expected}\n`);
  }
  return root;
}
const read = (root: string, name: string) => readFileSync(join(root, ...name.split('.')), 'utf8').trim();

describe('the kernel tunables', () => {
  it("are the kubelet's list and values", () => {
    expect(KERNEL_TUNABLES).toEqual({
      'vm.overcommit_memory': 1,
      'vm.panic_on_oom': 0,
      'kernel.panic': 10,
      'kernel.panic_on_oops': 1,
      'kernel.keys.root_maxkeys': 1000000,
      'kernel.keys.root_maxbytes': 25000000,
    });
  });

  it("are read from this host's /proc/sys: each difference is reported with --protect-kernel-defaults, nothing written", () => {
    const writes: string[] = [];
    const host = procSysctls('/proc/sys');
    const readOnly: SysctlAccess = { read: (name) => host.read(name), write: (name) => writes.push(name) };
    const result = setupKernelTunables(readOnly, true);
    const differing = Object.entries(KERNEL_TUNABLES).filter(([name, value]) => host.read(name) !== value);
    expect(result.problems).toEqual(differing.map(([name, value]) => `invalid kernel flag: ${name}, expected value: ${value}, actual value: ${host.read(name)}`));
    expect(writes).toEqual([]);
  });

  it('without --protect-kernel-defaults, sets every tunable that differs and leaves the others', () => {
    const root = kernel({ 'vm.overcommit_memory': 0, 'kernel.panic': 0 });
    const writes: string[] = [];
    const sysctls = procSysctls(root);
    const result = setupKernelTunables({ read: sysctls.read, write: (name, value) => (writes.push(name), sysctls.write(name, value)) }, false);
    expect(result.problems).toEqual([]);
    expect(result.updated).toEqual([
      { name: 'vm.overcommit_memory', from: 0, to: 1 },
      { name: 'kernel.panic', from: 0, to: 10 },
    ]);
    expect(writes).toEqual(['vm.overcommit_memory', 'kernel.panic']);
    expect(read(root, 'vm.overcommit_memory')).toBe('1');
    expect(read(root, 'kernel.panic')).toBe('10');
  });

  it("are copied for agents that must leave the host alone: the host's values, the agent's where the host has none", () => {
    const from = kernel({ 'kernel.panic': 0 });
    rmSync(join(from, 'kernel', 'keys', 'root_maxkeys'));
    const copy = copyKernelTunables(join(from, 'copy'), from);
    expect(read(copy, 'kernel.panic')).toBe('0');
    expect(read(copy, 'kernel.keys.root_maxkeys')).toBe('1000000');
    expect(read(copy, 'vm.overcommit_memory')).toBe('1');
  });

  it('a tunable that cannot be set is a problem', () => {
    const sysctls = procSysctls(kernel({ 'vm.panic_on_oom': 1 }));
    const result = setupKernelTunables({ read: sysctls.read, write: () => { throw new Error('read-only file system'); } }, false);
    expect(result.problems).toEqual(['cannot set kernel flag vm.panic_on_oom to 0 (it is 1): read-only file system']);
  });
});

describe('the agent start', () => {
  it('of every suite uses a copy of the tunables, never /proc/sys (test/setup/global.ts)', () => {
    const root = process.env['SVC_NODEAGENT_SYSCTL_ROOT'];
    expect(root).toMatch(/svc-sysctl-/);
    expect(procSysctls(root).read('kernel.panic')).toBeTypeOf('number');
  });

  const io = () => {
    const lines: string[] = [];
    return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } };
  };
  const startup = (args: string[]) => {
    const prepared = prepareNodeAgent(['--fail-swap-on=false', '--fail-cgroupv1=false', '--container-runtime-endpoint', 'unix:///nonexistent/containerd.sock', ...args], io().io, { swapDevices: 0, cgroupVersion: 2 });
    if (typeof prepared === 'number') throw new Error('options refused');
    return prepared;
  };

  it('is refused with --protect-kernel-defaults on a kernel that differs, naming each tunable, before anything runs', async () => {
    const root = kernel({ 'kernel.panic_on_oops': 0, 'vm.overcommit_memory': 0 });
    const error = await startNodeAgent(startup(['--protect-kernel-defaults']), io().io, { sysctls: procSysctls(root), runtimeWaitMs: 100 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('--protect-kernel-defaults');
    expect(error?.message).toContain('invalid kernel flag: vm.overcommit_memory, expected value: 1, actual value: 0');
    expect(error?.message).toContain('invalid kernel flag: kernel.panic_on_oops, expected value: 1, actual value: 0');
    expect(read(root, 'vm.overcommit_memory')).toBe('0');
  });

  it('goes past the check with --protect-kernel-defaults on a kernel as the agent needs it (then fails on the missing runtime)', async () => {
    const root = kernel({});
    const error = await startNodeAgent(startup(['--protect-kernel-defaults']), io().io, { sysctls: procSysctls(root), runtimeWaitMs: 100 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('does not answer');
  });

  it('without the option sets the tunables (logged at -v 2) and goes on', async () => {
    const root = kernel({ 'kernel.panic': 0 });
    const out = io();
    const error = await startNodeAgent(startup(['-v', '2']), out.io, { sysctls: procSysctls(root), runtimeWaitMs: 100 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('does not answer');
    expect(read(root, 'kernel.panic')).toBe('10');
    expect(out.lines.some((line) => / kernel-tunables\] updating kernel flag kernel.panic from 0 to 10$/.test(line))).toBe(true);
  });
});
