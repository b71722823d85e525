// What the node agent keeps out of its process until it needs it (docs/node-agent.md, "memory"):
// every module it loads stays resident for its life, so these are only loaded on use.
// - ajv: Fastify's default schema compiler (no agent route has a schema);
// - @peculiar/x509 and its ASN.1 stack: the serving certificate is written by src/encoding;
// - ws: loaded by the first exec, attach or port-forward over WebSocket;
// - cbor-x: loaded by the first CBOR body (src/encoding/cbor.ts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { buildAgentApp, type AgentAppContext, type AgentRouteModule } from '../../src/nodeagent/index.js';

const root = join(import.meta.dirname, '../..');

// ESM loads are seen by a loader hook (they are not in require's cache), CommonJS ones in the cache.
const hooks = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(file) { out = file; }
export async function load(url, context, next) { appendFileSync(out, url + '\\n'); return next(url, context); }
`;

// A fresh process: the agent's command module, then its three apps built and a certificate made.
const script = `
import { createRequire, register } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const dir = mkdtempSync(join(tmpdir(), 'svc-graph-'));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: join(dir, 'loaded') });
await import('./src/cli/nodeagent-command.ts');
const { buildAgentApp, agentTls } = await import('./src/nodeagent/index.ts');
const ctx = { flags: {}, nodeName: 'n', cri: undefined, pods: () => [], config: {}, metrics: {}, routes: [], authenticator: {}, authorizer: {} };
for (const type of ['healthz', 'readonly', 'readwrite']) await (await buildAgentApp(type, ctx)).ready();
await agentTls({ certDir: dir, address: '0.0.0.0', tlsCipherSuites: [] }, 'n');
const esm = readFileSync(join(dir, 'loaded'), 'utf8').split('\\n').filter((url) => url.startsWith('file:')).map((url) => new URL(url).pathname);
process.stdout.write(JSON.stringify([...Object.keys(createRequire(import.meta.url).cache), ...esm]));
`;

describe('the node agent module graph', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  const loaded = (): string[] => {
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as string[];
  };

  it('loads the agent and builds its apps (the probe works)', () => {
    expect(loaded().some((path) => path.includes('/node_modules/fastify/'))).toBe(true);
  });

  it.each([
    ['ajv', '/node_modules/ajv/'],
    ['@fastify/ajv-compiler', '/node_modules/@fastify/ajv-compiler/'],
    ['@peculiar/x509', '/node_modules/@peculiar/x509/'],
    ['asn1js', '/node_modules/asn1js/'],
    ['ws', '/node_modules/ws/'],
    ['cbor-x', '/node_modules/cbor-x/'],
  ])('does not load %s', (_name, dir) => {
    expect(loaded().filter((path) => path.includes(dir))).toEqual([]);
  });
});

describe("the agent's stand-in schema compilers", () => {
  it('refuse a route that declares a JSON schema, with an error that says to validate with zod', async () => {
    const withSchema: AgentRouteModule = {
      name: 'with-schema',
      debugging: false,
      register: (app) => {
        app.post('/with-schema', { schema: { body: { type: 'object', properties: { a: { type: 'string' } } } } }, async () => 'ok');
      },
    };
    // Only what building the app reads; no request is served.
    const ctx = { flags: {}, nodeName: 'n', pods: () => [], config: {}, metrics: {}, routes: [withSchema], authenticator: {}, authorizer: {} } as unknown as AgentAppContext;
    const app = await buildAgentApp('readwrite', ctx);
    const failure = await app.ready().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isStatusError(failure) ? failure.message : String(failure)).toContain('validate with zod');
  });
});
