import { lstat, readFile, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAtomically, type FileProjection } from '../../../src/nodeagent/index.js';
import { scratchDir } from '../../support/scratch.js';

const file = (text: string, mode = 0o644): FileProjection => ({ data: Buffer.from(text), mode });
const payload = (entries: Record<string, FileProjection>) => new Map(Object.entries(entries));
const hidden = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith('..')).sort();

describe('writeAtomically: the kubelet layout', () => {
  it('writes into a timestamped directory behind a ..data symlink, user paths as symlinks through ..data', async () => {
    const dir = scratchDir('atomic-');
    expect(await writeAtomically(dir, payload({ a: file('1'), 'nested/b': file('2', 0o600) }))).toBe(true);

    const target = await readlink(join(dir, '..data'));
    expect(target).toMatch(/^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d{3}\..+$/);
    expect(await hidden(dir)).toEqual([target, '..data'].sort());
    expect(await readlink(join(dir, 'a'))).toBe('..data/a');
    expect(await readlink(join(dir, 'nested'))).toBe('..data/nested');
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('1');
    expect(await readFile(join(dir, 'nested/b'), 'utf8')).toBe('2');
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o644);
    expect((await stat(join(dir, 'nested/b'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, target))).mode & 0o777).toBe(0o755);
  });

  it('swaps ..data to a new directory on change, drops removed names and the old directory', async () => {
    const dir = scratchDir('atomic-');
    await writeAtomically(dir, payload({ a: file('1'), gone: file('x') }));
    const first = await readlink(join(dir, '..data'));
    expect(await writeAtomically(dir, payload({ a: file('2'), added: file('y') }))).toBe(true);
    const second = await readlink(join(dir, '..data'));

    expect(second).not.toBe(first);
    expect(await hidden(dir)).toEqual([second, '..data'].sort());
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('2');
    expect(await readFile(join(dir, 'added'), 'utf8')).toBe('y');
    await expect(lstat(join(dir, 'gone'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writes nothing when content and modes are unchanged, and rewrites when only a mode changes', async () => {
    const dir = scratchDir('atomic-');
    await writeAtomically(dir, payload({ a: file('1') }));
    const first = await readlink(join(dir, '..data'));
    expect(await writeAtomically(dir, payload({ a: file('1') }))).toBe(false);
    expect(await readlink(join(dir, '..data'))).toBe(first);
    expect(await writeAtomically(dir, payload({ a: file('1', 0o400) }))).toBe(true);
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o400);
  });

  it('never shows a reader half of an update', async () => {
    const dir = scratchDir('atomic-');
    // Two files that must always agree: a reader going through ..data sees one version or the other.
    const version = (n: number) => payload({ left: file(String(n)), right: file(String(n)) });
    await writeAtomically(dir, version(0));
    let stop = false;
    let reads = 0;
    const mismatches: string[] = [];
    const reader = (async () => {
      while (!stop) {
        // Resolve ..data once, then read both files from that directory: what a process holding
        // the directory open sees.
        const data = join(dir, await readlink(join(dir, '..data')).catch(() => '..data'));
        const [left, right] = await Promise.all([readFile(join(data, 'left'), 'utf8'), readFile(join(data, 'right'), 'utf8')]).catch(() => ['gone', 'gone']);
        if (left !== 'gone' && left !== right) mismatches.push(`${left}/${right}`);
        // Through the user-visible names: each file is always complete.
        const viaLink = await readFile(join(dir, 'left'), 'utf8');
        if (viaLink === '') mismatches.push('empty');
        reads += 1;
      }
    })();
    for (let n = 1; n <= 40; n++) await writeAtomically(dir, version(n));
    stop = true;
    await reader;
    expect(mismatches).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(await readFile(join(dir, 'left'), 'utf8')).toBe('40');
  });

  it.each([
    ['/abs', 'must be relative'],
    ['a/../b', "must not contain '..'"],
    ['..hidden', "must not start with '..'"],
    ['', 'must not be empty'],
  ])('refuses the path %j', async (path, message) => {
    const dir = scratchDir('atomic-');
    await expect(writeAtomically(dir, payload({ [path]: file('x') }))).rejects.toThrow(message);
    expect(await readdir(dir)).toEqual([]);
  });
});
