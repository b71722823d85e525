import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { renderResourcesPage } from './resources-table.js';

const page = new URL('../../docs/resources.md', import.meta.url);

describe('docs/resources.md', () => {
  it('lists exactly the built-in types of the registry', () => {
    const expected = renderResourcesPage(builtinRegistry());
    if (process.env['SVC_UPDATE_DOCS'] === '1') writeFileSync(page, expected);
    expect(readFileSync(page, 'utf8'), 'regenerate with SVC_UPDATE_DOCS=1 npx vitest run test/api/resources-doc.test.ts').toBe(expected);
  });
});
