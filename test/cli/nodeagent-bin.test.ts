// The `nodeagent` bin's shebang starts Node with V8 flags (src/cli/nodeagent.ts says why): they
// must be flags this Node accepts, or the installed command would not start at all.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = readFileSync(join(import.meta.dirname, '../../src/cli/nodeagent.ts'), 'utf8');

describe('the nodeagent bin', () => {
  it('starts Node through env -S with the memory flags the docs name', () => {
    const flags = /^#!\/usr\/bin\/env -S node (.*)$/m.exec(bin.split('\n')[0]!)?.[1]?.split(' ');
    expect(flags).toEqual(['--max-semi-space-size=1', '--single-threaded', '--optimize-for-size']);
  });

  it('names flags this Node accepts', () => {
    const flags = /^#!\/usr\/bin\/env -S node (.*)$/.exec(bin.split('\n')[0]!)![1]!.split(' ');
    const run = spawnSync(process.execPath, [...flags, '-e', 'process.stdout.write("started")'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('started');
  });
});
