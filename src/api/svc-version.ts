import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * svc's own version, from its package.json: found by walking up from this file, because the file
 * runs both from src/ (tsx) and from dist/src/ (built) at different depths.
 */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc' && pkg.version) return pkg.version;
    } catch {
      // no package.json at this level
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

export const SVC_VERSION = readVersion();
