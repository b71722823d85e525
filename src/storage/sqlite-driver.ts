/**
 * The better-sqlite3 major this Node.js loads. 12.x subclasses Node's raw `ObjectWrap`, whose
 * destructor on Node 24 asserts that a Node environment is current; a prepared statement
 * collected at the wrong moment (a collection inside a microtask checkpoint, or the last one at
 * exit) aborts the process. 13.x is built on Node-API and has no such destructor, but it needs
 * Node 22 and crashes on Node 20. So Node 20 loads 12.x (`better-sqlite3`, compiled at `npm ci`)
 * and Node 22 and later load 13.x (`better-sqlite3-napi`, an npm alias whose Node-API builds ship
 * in the package, for every ABI). Their APIs are the same for everything svc calls.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

const NAPI_FROM_MAJOR = 22;

let loaded: typeof BetterSqlite3 | undefined;

/** The `Database` class for this Node's major, loaded on first use (memory and etcd stores never load it). */
export function sqliteDatabase(): typeof BetterSqlite3 {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const major = Number(process.versions.node.split('.')[0]);
  // 13.x ships no declarations of its own; its API is 12.x's, which @types/better-sqlite3 describes.
  loaded = (major >= NAPI_FROM_MAJOR ? require('better-sqlite3-napi') : require('better-sqlite3')) as typeof BetterSqlite3;
  return loaded;
}
