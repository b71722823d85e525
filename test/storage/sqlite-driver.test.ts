import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteDatabase } from '../../src/storage/sqlite-driver.js';

const major = Number(process.versions.node.split('.')[0]);
const require = createRequire(import.meta.url);

describe('the sqlite driver for this Node.js', () => {
  it(`loads better-sqlite3 ${major >= 22 ? '13 (Node-API)' : '12'} on Node ${major}`, () => {
    const expected = major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';
    expect(sqliteDatabase()).toBe(require(expected));
    const version = (require(`${expected}/package.json`) as { version: string }).version;
    expect(Number(version.split('.')[0])).toBe(major >= 22 ? 13 : 12);
  });

  it('survives stores opened and closed in a loop with their statements collected, and exits cleanly', () => {
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'fixtures/sqlite-churn.ts')], { encoding: 'utf8' });
    expect(child.signal).toBeNull();
    expect(child.stderr).not.toContain('Assertion failed');
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe('done');
  });
});
