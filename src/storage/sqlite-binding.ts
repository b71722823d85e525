/**
 * Which compiled better-sqlite3 addon this Node.js loads. npm builds the addon once, for the Node
 * that ran `npm ci`, into `build/Release`; a machine that runs svc on a second Node.js major (CI
 * runs the suite on Node 20 and 24 from one install) keeps that Node's build beside it where
 * node-pre-gyp lays builds out: `lib/binding/node-v<ABI>-<platform>-<arch>/better_sqlite3.node`.
 * When such a build exists for the running ABI it is the one to load; otherwise better-sqlite3's
 * own lookup (`build/Release`) applies.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let chosen: string | undefined | null = null;

/** The path of the addon built for this Node's ABI, or undefined to let better-sqlite3 choose. */
export function sqliteNativeBinding(): string | undefined {
  if (chosen !== null) return chosen;
  const packageDir = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  const perAbi = join(packageDir, 'lib', 'binding', `node-v${process.versions.modules}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
  chosen = existsSync(perAbi) ? perAbi : undefined;
  return chosen;
}
