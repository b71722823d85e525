// The `svc-controller-manager` bin's shebang starts Node with V8 memory flags (src/cli/svc-controller-manager.ts
// says why and what they saved): the line must be one env and this Node accept, or the installed
// command would not start.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const firstLine = readFileSync(join(import.meta.dirname, '../../src/cli/svc-controller-manager.ts'), 'utf8').split('\n')[0]!;

describe('the svc-controller-manager bin', () => {
  it('starts Node through env -S with the young-generation and old-generation growth flags', () => {
    expect(/^#!\/usr\/bin\/env -S node (.*)$/.exec(firstLine)?.[1]?.split(' ')).toEqual(['--max-semi-space-size=2', '--heap-growing-percent=50']);
    expect(Buffer.byteLength(firstLine)).toBeLessThanOrEqual(127);
  });

  it('is a line env and this Node accept', () => {
    const line = /^#!\/usr\/bin\/env -S (.*)$/.exec(firstLine)![1]!;
    const run = spawnSync('/usr/bin/env', ['-S', `${line} -p JSON.stringify(process.execArgv.slice(0,2))`], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(['--max-semi-space-size=2', '--heap-growing-percent=50']);
  });
});
