import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/storage/index.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqlite durability under SIGKILL', () => {
  it('keeps every acknowledged write when the writing process is killed mid-stream', async () => {
    const path = join(dir, 'state.db');
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/sqlite-writer.ts'), path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked = new Map<string, number>();
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    for await (const line of createInterface({ input: child.stdout })) {
      const [, key, rev] = line.split(' ');
      acked.set(key!, Number(rev));
      // Kill while writes are in flight: well past the first group commits.
      if (acked.size === 2000) child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(2000);

    const store = new SqliteStore({ path });
    try {
      const maxAcked = Math.max(...acked.values());
      expect(await store.revision()).toBeGreaterThanOrEqual(maxAcked);
      const { items } = await store.list('/registry/crash/');
      const stored = new Map(items.map((i) => [i.key, i.modRevision]));
      for (const [key, rev] of acked) expect(stored.get(key), key).toBe(rev);
      // The revision continues after the crash.
      const next = await store.create('/registry/crash/after', new Uint8Array([1]));
      expect(next.modRevision).toBe((await store.revision()));
      expect(next.modRevision).toBeGreaterThan(maxAcked);
    } finally {
      await store.close();
    }
  });
});
