// No file of src/, operators/ or controllers/ reaches itself through static imports (type-only
// imports included: a circle of types is still a circle a reader has to hold in their head, and
// the next value import along it makes it a load-order bug). Dynamic `import()` is left out: it
// is how a module defers a dependency on purpose.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const DIRS = ['src', 'operators', 'controllers'];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(root, dir, file));
}

/** The relative specifiers a file imports or re-exports statically, comments aside. */
function staticImports(file: string): string[] {
  const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'(\.[^']+)'/gm), ...code.matchAll(/^\s*import\s+'(\.[^']+)'/gm)].map((m) => m[1]!);
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources). */
function resolveSpec(from: string, spec: string): string | undefined {
  const path = resolve(dirname(from), spec);
  for (const candidate of [path.replace(/\.js$/, '.ts'), path, `${path}.ts`, join(path, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Strongly connected components of more than one file, or of one file importing itself (Tarjan). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) found.push(component.sort());
      }
    }
  }
  return found;
}

describe('imports', () => {
  it('finds a cycle when there is one (the checker itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(importCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  it('no file of src/, operators/ or controllers/ imports itself in a circle', () => {
    const graph = new Map<string, string[]>();
    for (const file of DIRS.flatMap(sources)) {
      const to = staticImports(file)
        .map((spec) => resolveSpec(file, spec))
        .filter((path): path is string => path !== undefined);
      graph.set(relative(root, file), to.map((path) => relative(root, path)));
    }
    expect(importCycles(graph)).toEqual([]);
  });
});
