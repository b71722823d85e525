// The layer rules of docs/architecture.md that a reader can check by imports alone: operators
// use nothing but rxjs, ix and each other; api, encoding and storage know nothing of HTTP.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
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

describe('layers', () => {
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

  it('src/watch-cache imports only storage, api and encoding among svc layers, and no HTTP', () => {
    const allowed = /^(rxjs|sorted-btree|node:module|\.\/[^/]+|\.\.\/(storage|api|encoding)\/index\.js)$/;
    const found = sources('src/watch-cache').flatMap((file) =>
      imports(file).filter((spec) => !allowed.test(spec)).map((spec) => `${relative(root, file)}: ${spec}`),
    );
    expect(found).toEqual([]);
  });
});
