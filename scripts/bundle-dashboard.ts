// The dashboard page's script for an installed svc: src/dashboard/ui/ bundled by esbuild into
// dist/dashboard/app.js (`npm run build` runs this after tsc), which `svc dashboard` serves when
// it runs from dist. From sources it bundles the same entry in memory (src/dashboard/ui-bundle.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleUi } from '../src/dashboard/index.js';

const root = join(import.meta.dirname, '..');
const out = join(root, 'dist', 'dashboard', 'app.js');
await mkdir(join(root, 'dist', 'dashboard'), { recursive: true });
await writeFile(out, await bundleUi(join(root, 'src', 'dashboard', 'ui', 'main.ts')));
