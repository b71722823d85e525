import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ControlLoop } from '../context.js';
import { invalidModuleControllerName } from './controller-names.js';

/**
 * A user's own controllers in svc-controller-manager without editing svc: `--controller-module=
 * PATH|PKG` (repeatable, or `controllerModules` in `--config`) names an ES module whose default
 * export — or, without one, its export named `controllers` — maps controller names to loops
 * (`ControlLoop`: a function of the `ControllerContext`, docs/controllers.md). Its names then
 * work in `--controllers` as the built-in ones do (`*` turns them on, `-name` off).
 */

/** The named export read when a module has no default export. */
export const CONTROLLER_MODULE_EXPORT = 'controllers';

const isPath = (spec: string): boolean => spec.startsWith('.') || isAbsolute(spec) || spec.includes('\\') || /\.(c|m)?(j|t)s$/.test(spec);

/** The URL to import `spec` from: a file path relative to `base`, or a package as Node finds it from `base`. */
function moduleUrl(spec: string, base: string): string {
  if (isPath(spec)) return pathToFileURL(resolve(base, spec)).href;
  try {
    return pathToFileURL(createRequire(join(base, 'package.json')).resolve(spec)).href;
  } catch {
    // A package that exports only for `import` is not resolvable by require: let import() find it (from svc's own node_modules).
    return spec;
  }
}

/** Loads one controller module; its loops by name. Throws `Error` saying what is wrong with it. */
export async function loadControllerModule(spec: string, base = process.cwd()): Promise<Map<string, ControlLoop>> {
  let module: Record<string, unknown>;
  try {
    module = (await import(moduleUrl(spec, base))) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`controller module ${spec}: cannot load it: ${(error as Error).message}`);
  }
  const exported = module['default'] ?? module[CONTROLLER_MODULE_EXPORT];
  if (exported === undefined) throw new Error(`controller module ${spec}: no default export and no export named "${CONTROLLER_MODULE_EXPORT}"`);
  const entries: [unknown, unknown][] =
    exported instanceof Map ? [...(exported as Map<unknown, unknown>)] : typeof exported === 'object' && exported !== null ? Object.entries(exported) : [];
  if (entries.length === 0) throw new Error(`controller module ${spec}: its export must map controller names to loops (functions of the ControllerContext)`);
  const loops = new Map<string, ControlLoop>();
  for (const [name, loop] of entries) {
    const problem = typeof name === 'string' ? invalidModuleControllerName(name) : 'a controller name must be a string';
    if (problem) throw new Error(`controller module ${spec}: ${problem}`);
    if (typeof loop !== 'function') throw new Error(`controller module ${spec}: ${JSON.stringify(name)} is not a loop (a function of the ControllerContext)`);
    loops.set(name as string, loop as ControlLoop);
  }
  return loops;
}

/** Loads every module in order; a name given by two modules is an error. */
export async function loadControllerModules(modules: readonly { readonly spec: string; readonly base?: string }[]): Promise<Map<string, ControlLoop>> {
  const all = new Map<string, ControlLoop>();
  const from = new Map<string, string>();
  for (const { spec, base } of modules) {
    for (const [name, loop] of await loadControllerModule(spec, base)) {
      if (all.has(name)) throw new Error(`controller ${JSON.stringify(name)} is given by both ${from.get(name)} and ${spec}`);
      all.set(name, loop);
      from.set(name, spec);
    }
  }
  return all;
}
