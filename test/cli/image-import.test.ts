/**
 * `svc image import` against a real containerd, found where `svc up` puts it
 * (<data-dir>/containerd/containerd.sock, here a symlink to the test containerd's socket).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIO } from '../../src/cli/command.js';
import { main } from '../../src/cli/svc-command.js';
import { startContainerd, type RunningContainerd } from '../support/containerd.js';
import { writeTinyImage } from '../nodeagent/images/support.js';

let containerd: RunningContainerd;
const scratch = mkdtempSync(join(tmpdir(), 'svc-image-cli-'));
const dataDir = join(scratch, 'data');

beforeAll(async () => {
  containerd = await startContainerd({ importImages: false });
  mkdirSync(join(dataDir, 'containerd'), { recursive: true });
  symlinkSync(containerd.address, join(dataDir, 'containerd', 'containerd.sock'));
}, 120_000);

afterAll(async () => {
  await containerd?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function capture(): CommandIO & { text: () => string; errText: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out: (line) => void out.push(line), err: (line) => void err.push(line), text: () => out.join('\n'), errText: () => err.join('\n') };
}

const hasImage = async (ref: string) => (await containerd.cri.imageStatus({ image: { image: ref } })).image !== null;

describe('svc image import', () => {
  it('imports the archives into the running containerd and keeps copies in <data-dir>/agent/images', async () => {
    const a = writeTinyImage(scratch, 'registry.invalid/cli/a:1');
    const b = writeTinyImage(scratch, 'registry.invalid/cli/b:1');
    const io = capture();
    expect(await main(['image', 'import', `--data-dir=${dataDir}`, a.path, b.path], io)).toBe(0);
    expect(io.errText()).toBe('');
    expect(io.text()).toBe(`imported ${a.path} (oci)\nimported ${b.path} (oci)`);
    expect(await hasImage('registry.invalid/cli/a:1')).toBe(true);
    expect(await hasImage('registry.invalid/cli/b:1')).toBe(true);
    const kept = join(dataDir, 'agent', 'images');
    expect(readdirSync(kept).sort()).toEqual([a.path, b.path].map((p) => p.split('/').pop()).sort());
    expect(readFileSync(join(kept, a.path.split('/').pop()!)).equals(readFileSync(a.path))).toBe(true);
  });

  it('a missing file or a file that is not an archive exits 1 and imports nothing', async () => {
    const good = writeTinyImage(scratch, 'registry.invalid/cli/not-imported:1');
    const text = join(scratch, 'notes.txt');
    writeFileSync(text, 'hello\n');
    const io = capture();
    expect(await main(['image', 'import', '--data-dir', dataDir, good.path, text, join(scratch, 'missing.tar')], io)).toBe(1);
    expect(io.errText()).toContain(`${text}: not an image archive`);
    expect(io.errText()).toContain(`${join(scratch, 'missing.tar')}: no such file`);
    expect(await hasImage('registry.invalid/cli/not-imported:1')).toBe(false);
    expect(existsSync(join(dataDir, 'agent', 'images', good.path.split('/').pop()!))).toBe(false);
  });

  it('no cluster on the data dir exits 1 and says so', async () => {
    const image = writeTinyImage(scratch, 'registry.invalid/cli/nowhere:1');
    const empty = join(scratch, 'empty');
    const io = capture();
    expect(await main(['image', 'import', `--data-dir=${empty}`, image.path], io)).toBe(1);
    expect(io.errText()).toContain(`no cluster running on ${empty}`);

    // A socket path that nothing serves.
    const stale = join(scratch, 'stale');
    mkdirSync(join(stale, 'containerd'), { recursive: true });
    symlinkSync(join(scratch, 'no-such.sock'), join(stale, 'containerd', 'containerd.sock'));
    writeFileSync(join(scratch, 'no-such.sock'), '');
    const io2 = capture();
    expect(await main(['image', 'import', `--data-dir=${stale}`, image.path], io2)).toBe(1);
    expect(io2.errText()).toContain('does not answer');
  });

  it('usage errors exit 2; --help describes the command', async () => {
    const io = capture();
    expect(await main(['image', 'import', `--data-dir=${dataDir}`], io)).toBe(2);
    expect(io.errText()).toContain('no image archive given');
    const help = capture();
    expect(await main(['image', 'import', '--help'], help)).toBe(0);
    expect(help.text()).toContain('svc image import [--data-dir DIR] FILE...');
    const top = capture();
    expect(await main(['--help'], top)).toBe(0);
    expect(top.text()).toMatch(/\n {2}image +Manage the images/);
    expect(await main(['image', 'export'], capture())).toBe(2);
  });
});
