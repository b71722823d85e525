// Regenerates src/encoding/protobuf/sources.ts from docs/proto/*.proto (the codec embeds the
// published schemas, so it needs no file access at run time). Run: npm run gen:proto
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const dir = join(root, 'docs/proto');
const files = readdirSync(dir).filter((f) => f.endsWith('.proto')).sort();
const entries = files.map((file) => `  ${JSON.stringify(file)}: ${JSON.stringify(readFileSync(join(dir, file), 'utf8'))},`);
const out = `/**
 * The .proto files of docs/proto, embedded so the codec needs no file access (generated from
 * them by scripts/gen-proto-sources.ts; test/encoding/codecs.test.ts fails when the two differ).
 */
export const PROTO_SOURCES: Readonly<Record<string, string>> = {
${entries.join('\n')}
};
`;
writeFileSync(join(root, 'src/encoding/protobuf/sources.ts'), out);
console.log(`wrote src/encoding/protobuf/sources.ts (${files.length} files)`);
