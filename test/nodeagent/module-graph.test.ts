// What the node agent keeps out of its process until it needs it (docs/node-agent.md, "memory"):
// every module it loads stays resident for its life, so these are only loaded on use.
// - ajv: Fastify's default schema compiler (no agent route has a schema);
// - @peculiar/x509 and its ASN.1 stack: the serving certificate is written by src/encoding;
// - ws: loaded by the first exec, attach or port-forward over WebSocket.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

// A fresh process: the agent's command module, then its three apps built and a certificate made.
const script = `
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
await import('./src/cli/nodeagent-command.ts');
const { buildAgentApp, agentTls } = await import('./src/nodeagent/index.ts');
const ctx = { flags: {}, nodeName: 'n', cri: undefined, pods: () => [], config: {}, metrics: {}, routes: [], authenticator: {}, authorizer: {} };
for (const type of ['healthz', 'readonly', 'readwrite']) await (await buildAgentApp(type, ctx)).ready();
await agentTls({ certDir: mkdtempSync(join(tmpdir(), 'svc-graph-')), address: '0.0.0.0', tlsCipherSuites: [] }, 'n');
process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
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
  ])('does not load %s', (_name, dir) => {
    expect(loaded().filter((path) => path.includes(dir))).toEqual([]);
  });
});
