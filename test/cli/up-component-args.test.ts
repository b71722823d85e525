// `svc up --controller-manager-arg` and `--scheduler-arg` reach the components svc up runs (as
// k3s's --kube-controller-manager-arg): a value the component refuses stops svc up with the
// component's own message, which only the component could have produced.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** svc up, control plane only, with `args`: its exit code and stderr. */
async function upWith(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-up-args-'));
  dirs.push(dir);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--disable-agent', '--disable-dashboard', ...args], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { code, stderr: stderr.join('') };
}

describe('svc up passes flags to its components', () => {
  it('gives --controller-manager-arg to the controller manager', async () => {
    const { code, stderr } = await upWith(['--controller-manager-arg=--svc-api-burst=0']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/controller manager: .*svc-api-burst.*must be at least 1/);
  });

  it('gives --scheduler-arg to the scheduler', async () => {
    const { code, stderr } = await upWith(['--scheduler-arg=--svc-api-burst=0']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/scheduler: .*svc-api-burst/);
  });
});
