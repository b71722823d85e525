import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shareRootDir } from '../../../src/nodeagent/index.js';
import { scratchDir } from '../../support/scratch.js';

// Mounts this file made, unmounted innermost first whatever failed.
const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted.reverse()) execFileSync('umount', [dir]);
});

const propagationAt = (dir: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[4] === dir)
    .map((fields) => fields.slice(6, fields.indexOf('-', 6)));

describe('shareRootDir', () => {
  it('binds a root dir on a private mount onto itself and makes it shared, once', async () => {
    // A private mount to stand on, whatever the host's / is.
    const parent = scratchDir('vol-root-');
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', parent]);
    mounted.push(parent);
    execFileSync('mount', ['--make-private', parent]);
    const root = join(parent, 'agent');
    mkdirSync(root);

    expect(await shareRootDir(root)).toBe(true);
    mounted.push(root);
    const tags = propagationAt(root);
    expect(tags).toHaveLength(1);
    expect(tags[0]!.some((tag) => tag.startsWith('shared:'))).toBe(true);
    // Already shared: nothing more is mounted.
    expect(await shareRootDir(root)).toBe(false);
    expect(propagationAt(root)).toHaveLength(1);
  });

  it('leaves a root dir on a shared mount as it is', async () => {
    const parent = scratchDir('vol-root-');
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', parent]);
    mounted.push(parent);
    execFileSync('mount', ['--make-shared', parent]);
    const root = join(parent, 'agent');
    expect(await shareRootDir(root)).toBe(false);
    expect(propagationAt(root)).toEqual([]);
  });
});
