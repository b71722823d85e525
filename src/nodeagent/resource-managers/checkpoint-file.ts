// The kubelet's checkpoint files (cpu_manager_state, memory_manager_state): JSON in the root
// dir, replaced atomically so a crash leaves the old or the new file, never half of one.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The file's text, or undefined when there is none. */
export function readCheckpoint(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function writeCheckpoint(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o644 });
  renameSync(temporary, path);
}

/** A checkpoint that cannot be used; the agent refuses to start, as the kubelet does. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}
