// Regenerates docs/flags/*.md from the daemons' flag tables:
//   node --import tsx scripts/gen-flags-docs.ts
// test/cli/flags.test.ts fails while a page differs from what this writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLAG_PAGES_GENERATOR, flagPages } from '../src/cli/flag-pages.js';
import { renderMarkdown } from '../src/cli/flag-docs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const page of flagPages) {
  const path = join(root, page.file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderMarkdown(page.doc, page.table, FLAG_PAGES_GENERATOR));
  console.log(`wrote ${page.file}`);
}
