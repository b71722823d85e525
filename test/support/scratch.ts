import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Scratch directories made by the test file that imports this module. */
const made = new Set<string>();

// Registered when a test file first imports this module (each file gets its own module
// instance), so the file's directories go when the file is done, whatever failed before.
afterAll(() => {
  for (const path of made) rmSync(path, { recursive: true, force: true });
  made.clear();
});

/**
 * A fresh directory under the system's temp dir for files a test writes (configs, certificates),
 * removed after the test file, so runs leave nothing behind even when a test fails before its
 * own cleanup.
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
