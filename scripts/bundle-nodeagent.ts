// The installed `nodeagent` bin (dist/nodeagent.mjs): src/cli/nodeagent.ts and what it imports as
// one minified ES module. A node agent lives as long as its node, and V8 keeps the source text of
// every script it loaded for good: ~1,400 modules and 6.4 MB of text here, comments included. One
// minified script holds what the agent uses in 1.8 MB, with one module record instead of 1,400:
// svc's package.json declares its files free of import side effects, so modules whose exports
// the agent never uses (the schemas of kinds it does not validate) are left out.
// `npm run build` runs this after tsc; `svc up` and most tests run the agent's modules as they
// are (test/nodeagent/daemon/api-mode.test.ts and standalone.test.ts run this bundle).
//
// Left outside, to Node's resolution at run time: cbor-x and ws, which the agent loads only on first
// use (src/encoding/cbor.ts, src/nodeagent/streaming/ws-module.ts), and what Fastify requires only
// on paths the agent never takes (schema compilers, inject). Readable stack traces: `NODE_OPTIONS=--enable-source-maps`
// (the source map is written beside the bundle); third-party license texts go to
// nodeagent.mjs.LEGAL.txt.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = join(import.meta.dirname, '..');

/** Where `npm run build` writes the bundle; package.json's `bin.nodeagent`. */
export const NODEAGENT_BUNDLE = join(root, 'dist', 'nodeagent.mjs');

/** Modules the agent loads on first use: left to Node's resolution at run time. */
export const NODEAGENT_LAZY = ['cbor-x', 'ws'] as const;

/**
 * Modules Fastify requires only where the agent never goes: its default schema compilers (the
 * agent passes its own, agent-app.ts) and `inject`. ~270 KB of text the agent would keep.
 */
export const NODEAGENT_NEVER_LOADED = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request'] as const;

/**
 * zod's messages in English only: its index re-exports ~40 languages (260 KB of the bundle's
 * text) that nothing in svc selects, and the namespace re-export keeps them from being shaken out.
 */
const englishOnlyZod: Plugin = {
  name: 'zod-english-only',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * rxjs as ES modules: its package sends Node to the CommonJS build, which esbuild can only wrap
 * whole, and every `import ... from 'rxjs'` then gets its own namespace object with a getter per
 * export (~33 KB each, 23 of them). Its ES2015 build is the same code, declared side-effect free,
 * so one copy of what svc uses stays. Anything that require()s rxjs would load the CommonJS copy
 * too (two Observable classes): the bundle test checks that no file of dist/cjs is in the bundle.
 */
const rxjsModules: Plugin = {
  name: 'rxjs-es-modules',
  setup(esbuild) {
    const dist = join(dirname(createRequire(import.meta.url).resolve('rxjs/package.json')), 'dist', 'esm');
    esbuild.onResolve({ filter: /^rxjs(\/operators)?$/ }, (args) => ({
      path: join(dist, args.path === 'rxjs' ? 'index.js' : 'operators/index.js'),
    }));
  },
};

/**
 * undici as the agent uses it: its `Agent`, with the request methods undici's index puts on every
 * dispatcher. The index require()s all of undici (fetch, WebSocket, caches, mocks: 420 KB of
 * text in this bundle), which esbuild cannot shake from CommonJS; these are the files it takes
 * them from. An import of any other name from 'undici' in the agent's graph fails the build
 * ("No matching export"), and a new undici that moves these files fails it at resolution.
 */
const undiciAgentOnly: Plugin = {
  name: 'undici-agent-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'svc-undici-agent' }));
    esbuild.onLoad({ filter: /.*/, namespace: 'svc-undici-agent' }, () => ({
      contents: [
        "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
        "import api from 'undici/lib/api/index.js';",
        "import Agent from 'undici/lib/dispatcher/agent.js';",
        'Object.assign(Dispatcher.prototype, api);',
        'export { Agent };',
      ].join('\n'),
      resolveDir: root,
    }));
  },
};

/**
 * Writes the bundle to `outfile` and answers the files it holds code of (an input whose code was
 * all shaken out is not one); fails if any character past ASCII is left in it.
 */
export async function bundleNodeAgent(outfile: string = NODEAGENT_BUNDLE): Promise<string[]> {
  const result = await build({
    entryPoints: [join(root, 'src/cli/nodeagent.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    external: [...NODEAGENT_LAZY, ...NODEAGENT_NEVER_LOADED],
    metafile: true,
    plugins: [englishOnlyZod, rxjsModules, undiciAgentOnly],
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  // esbuild escapes what it can (charset 'ascii'), but not inside a regular expression literal.
  // One character past Latin-1 and V8 holds the whole script at two bytes per character.
  const text = readFileSync(outfile, 'latin1');
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0) throw new Error(`${outfile}: a character past ASCII at offset ${at} (${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}): write it as an escape in the source`);
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
  if (!output) throw new Error(`${outfile}: esbuild reported no output for the entry point`);
  return Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([file]) => file);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundleNodeAgent();
