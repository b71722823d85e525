// The installed `nodeagent` bin (dist/nodeagent.mjs): src/cli/nodeagent.ts and what it imports as
// one minified ES module. A node agent lives as long as its node, and V8 keeps the source text of
// every script it loaded for good: ~1,400 modules and 6.4 MB of text here, comments included. One
// minified script holds the same code in 2.7 MB, with one module record instead of 1,400.
// `npm run build` runs this after tsc; `svc up` and the tests run the agent's modules as they are.
//
// Left outside: cbor-x and ws, which the agent loads only on first use (src/encoding/cbor.ts,
// src/nodeagent/streaming/ws-module.ts). Readable stack traces: `NODE_OPTIONS=--enable-source-maps`
// (the source map is written beside the bundle); third-party license texts go to
// nodeagent.mjs.LEGAL.txt.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');

/** Where `npm run build` writes the bundle; package.json's `bin.nodeagent`. */
export const NODEAGENT_BUNDLE = join(root, 'dist', 'nodeagent.mjs');

/** Modules the bundle leaves to Node's resolution at run time: loaded on first use only. */
export const NODEAGENT_EXTERNAL = ['cbor-x', 'ws'] as const;

/** Writes the bundle to `outfile`; fails if any character past ASCII is left in it. */
export async function bundleNodeAgent(outfile: string = NODEAGENT_BUNDLE): Promise<void> {
  await build({
    entryPoints: [join(root, 'src/cli/nodeagent.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    external: [...NODEAGENT_EXTERNAL],
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  // esbuild escapes what it can (charset 'ascii'), but not inside a regular expression literal.
  // One character past Latin-1 and V8 holds the whole script at two bytes per character.
  const text = readFileSync(outfile, 'latin1');
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0) throw new Error(`${outfile}: a character past ASCII at offset ${at} (${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}): write it as an escape in the source`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundleNodeAgent();
