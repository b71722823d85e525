// The `nodeagent` bin's shebang starts Node with V8 flags and a malloc setting (src/cli/nodeagent.ts
// says why): the line must be one env and this Node accept, or the installed command would not start.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = readFileSync(join(import.meta.dirname, '../../src/cli/nodeagent.ts'), 'utf8');

describe('the nodeagent bin', () => {
  it('starts Node through env -S with the memory flags and the malloc setting the docs name', () => {
    const shebang = /^#!\/usr\/bin\/env -S (.*) node (.*)$/.exec(bin.split('\n')[0]!);
    expect(shebang?.[1]?.split(' ')).toEqual(['MALLOC_MMAP_THRESHOLD_=32768']);
    expect(shebang?.[2]?.split(' ')).toEqual(['--max-semi-space-size=1', '--single-threaded', '--optimize-for-size', '--flush-baseline-code']);
  });

  it('fits the kernel\'s shebang limit (255 bytes since Linux 5.1; 127 before, which this line passes)', () => {
    expect(Buffer.byteLength(bin.split('\n')[0]!)).toBeLessThanOrEqual(255);
  });

  it('is a line env and this Node accept: the agent starts with the flags and the malloc setting', () => {
    // What the kernel runs for the installed bin: env with the rest of the line, then the script.
    const line = /^#!\/usr\/bin\/env -S (.*)$/.exec(bin.split('\n')[0]!)![1]!;
    const run = spawnSync('/usr/bin/env', ['-S', `${line} -p JSON.stringify([process.env.MALLOC_MMAP_THRESHOLD_,process.execArgv.slice(0,4)])`], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(['32768', ['--max-semi-space-size=1', '--single-threaded', '--optimize-for-size', '--flush-baseline-code']]);
  });
});
