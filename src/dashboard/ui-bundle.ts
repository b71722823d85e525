import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The page's script. `npm run build` bundles src/dashboard/ui/ into dist/dashboard/app.js
 * (scripts/bundle-dashboard.ts), which an installed svc serves. Run from its TypeScript sources
 * (tsx, the tests), svc bundles the UI in memory with esbuild, a development dependency, so the
 * page is never older than the code beside it.
 */
export async function loadUiBundle(): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  if (import.meta.url.endsWith('.ts')) return bundleUi(join(here, 'ui', 'main.ts'));
  // dist/src/dashboard/ui-bundle.js → dist/dashboard/app.js
  return readFile(join(here, '..', '..', 'dashboard', 'app.js'), 'utf8');
}

/**
 * The UI as one minified ES module (what scripts/bundle-dashboard.ts writes). `minify: false`
 * keeps the names, for a CPU profile of the page that says which function is which.
 */
export async function bundleUi(entry: string, options: { readonly minify?: boolean } = {}): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    minify: options.minify ?? true,
    target: 'es2022',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    // uPlot's stylesheet, as text the page adopts (time-series.ts).
    loader: { '.css': 'text' },
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error('esbuild wrote no dashboard bundle');
  return file.text;
}
