// The layer rules of docs/architecture.md, checked by imports alone: the order of its Layers table
// (a layer imports only from the layers above it, only through their index.ts), operators use
// nothing but rxjs, ix and each other, api, encoding and storage know nothing of HTTP, and every
// layer with an index.ts is one of the package's exports; src/browser-safe imports nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(root, dir, file));
}

/** Every module specifier a file imports or re-exports (comments and doc examples aside). */
function imports(file: string): string[] {
  const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm), ...code.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
}

/**
 * The folders of the Layers table of docs/architecture.md, top to bottom. The table is the one
 * list: a new layer (or a folder moved out of another) needs only its row there.
 */
function layerTable(): string[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Layers\n'));
  if (section === undefined) throw new Error('docs/architecture.md has no "## Layers" section');
  return [...section.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!.replace(/\/$/, ''));
}

const layers = layerTable();

/** The layer a repository path belongs to: the longest table folder it lies in. */
function layerOf(path: string): string | undefined {
  const posix = path.split(sep).join('/');
  return layers.filter((layer) => posix === layer || posix.startsWith(`${layer}/`)).sort((a, b) => b.length - a.length)[0];
}

describe('layers', () => {
  it('the Layers table of docs/architecture.md names existing folders, each once', () => {
    expect(layers.length).toBeGreaterThan(5);
    expect(new Set(layers).size).toBe(layers.length);
    expect(layers.filter((layer) => !existsSync(join(root, layer)))).toEqual([]);
  });

  it('every source folder is a layer of the table', () => {
    const folders = [
      ...readdirSync(join(root, 'src'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `src/${entry.name}`),
      'operators',
      'controllers',
    ];
    expect(folders.filter((folder) => layerOf(folder) === undefined)).toEqual([]);
  });

  it('a layer imports only layers above it in the table, and only through their index.ts', () => {
    const wrong = layers.flatMap((layer) =>
      sources(layer).flatMap((file) => {
        if (layerOf(relative(root, file)) !== layer) return []; // a nested layer's own files
        return imports(file)
          .filter((spec) => spec.startsWith('.'))
          .flatMap((spec) => {
            const target = relative(root, resolve(dirname(file), spec)).split(sep).join('/');
            const to = layerOf(target);
            const where = `${relative(root, file)}: ${spec}`;
            if (to === undefined) return [`${where} (outside every layer)`];
            if (to === layer) return [];
            if (layers.indexOf(to) > layers.indexOf(layer)) return [`${where} (${to} is below ${layer})`];
            if (target !== `${to}/index.js`) return [`${where} (not through ${to}/index.ts)`];
            return [];
          });
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('package.json exports every layer with an index.ts', () => {
    const exports = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }> }).exports;
    const missing = layers
      .filter((layer) => existsSync(join(root, layer, 'index.ts')))
      .filter((layer) => {
        const entry = exports[`./${basename(layer)}`];
        return entry?.import !== `./dist/${layer}/index.js` || entry.types !== `./dist/${layer}/index.d.ts`;
      });
    expect(missing).toEqual([]);
  });

  it('operators/ imports only rxjs, ix and its own files', () => {
    const outside = sources('operators').flatMap((file) =>
      imports(file)
        .filter((spec) => !(spec === 'rxjs' || spec.startsWith('rxjs/') || spec === 'ix' || spec.startsWith('ix/') || (spec.startsWith('./') && !spec.includes('..'))))
        .map((spec) => `${relative(root, file)}: ${spec}`),
    );
    expect(outside).toEqual([]);
  });

  it('src/api, src/encoding and src/storage import no HTTP server or client', () => {
    const http = /^(fastify|@fastify\/|undici$|node:https?$|node:http2$|https?$|light-my-request$)/;
    const found = ['src/api', 'src/encoding', 'src/storage'].flatMap((dir) =>
      sources(dir).flatMap((file) => imports(file).filter((spec) => http.test(spec)).map((spec) => `${relative(root, file)}: ${spec}`)),
    );
    expect(found).toEqual([]);
  });

  it('src/browser-safe imports nothing (the dashboard page bundles it for the browser)', () => {
    const found = sources('src/browser-safe').flatMap((file) => imports(file).filter((spec) => !/^\.\/[^/]+\.js$/.test(spec)).map((spec) => `${relative(root, file)}: ${spec}`));
    expect(found).toEqual([]);
  });

  it('src/watch-cache imports only storage, api and encoding among svc layers, and no HTTP', () => {
    const allowed = /^(rxjs|sorted-btree|node:module|\.\/[^/]+|\.\.\/(storage|api|encoding)\/index\.js)$/;
    const found = sources('src/watch-cache').flatMap((file) =>
      imports(file).filter((spec) => !allowed.test(spec)).map((spec) => `${relative(root, file)}: ${spec}`),
    );
    expect(found).toEqual([]);
  });
});
