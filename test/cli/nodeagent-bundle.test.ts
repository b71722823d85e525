// The installed `nodeagent` bin is one bundled script (scripts/bundle-nodeagent.ts says why): it
// must stay one-byte text for V8, carry the source bin's shebang, leave its lazily loaded modules
// outside, and start. (test/nodeagent/daemon/standalone.test.ts runs a pod with it.)
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleNodeAgent, NODEAGENT_LAZY, NODEAGENT_NEVER_LOADED } from '../../scripts/bundle-nodeagent.js';
import { SVC_VERSION } from '../../src/api/index.js';

const root = join(import.meta.dirname, '../..');
// Inside the repository, as dist/ is: the bundle finds package.json and node_modules from there.
const dir = join(root, 'node_modules/.cache', `svc-bundle-bin-${process.pid}`);
const bin = join(dir, 'nodeagent.mjs');
let text = '';
let inputs: string[] = [];

beforeAll(async () => {
  inputs = await bundleNodeAgent(bin);
  text = readFileSync(bin, 'latin1');
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundled nodeagent bin', () => {
  it('is ASCII only, so V8 holds its source at one byte per character', () => {
    expect(text.search(/[^\x00-\x7f]/)).toBe(-1);
  });

  it('starts with the shebang of src/cli/nodeagent.ts (its V8 flags and malloc settings)', () => {
    const source = readFileSync(join(root, 'src/cli/nodeagent.ts'), 'utf8');
    expect(text.split('\n')[0]).toBe(source.split('\n')[0]);
  });

  it.each([...NODEAGENT_LAZY, ...NODEAGENT_NEVER_LOADED, 'ajv'])('holds no module of %s', (name) => {
    expect(inputs.filter((file) => file.includes(`node_modules/${name}/`))).toEqual([]);
  });

  it("holds zod's English messages only", () => {
    const locales = inputs.filter((file) => /zod\/v4\/locales\/[a-zA-Z-]+\.js$/.test(file)).map((file) => file.split('/').pop());
    expect(locales.sort()).toEqual(['en.js', 'index.js']);
  });

  it('holds rxjs once, as its ES modules (a CommonJS copy would be a second Observable class)', () => {
    const rxjs = inputs.filter((file) => file.includes('node_modules/rxjs/'));
    expect(rxjs.length).toBeGreaterThan(0);
    expect(rxjs.filter((file) => !file.includes('node_modules/rxjs/dist/esm/'))).toEqual([]);
  });

  it('leaves out the kind schemas the agent never validates (svc\'s files are declared side-effect free)', () => {
    const kinds = inputs.filter((file) => file.startsWith('src/api/kinds/'));
    expect(kinds).toContain('src/api/kinds/pod.ts');
    for (const unused of ['apps', 'batch', 'rbac', 'apiextensions', 'admissionregistration', 'autoscaling']) expect(kinds).not.toContain(`src/api/kinds/${unused}.ts`);
  });

  it("holds undici's Agent, not its fetch, WebSocket, caches or mocks", () => {
    const undici = inputs.filter((file) => file.includes('node_modules/undici/'));
    expect(undici).toContain('node_modules/undici/lib/dispatcher/agent.js');
    expect(undici.filter((file) => /undici\/(index\.js|lib\/(mock|web\/websocket|web\/cache|web\/fetch\/index\.js))/.test(file))).toEqual([]);
  });

  it('imports no node:tls as an ES module (its ES module facade reads and keeps every root certificate)', () => {
    expect(text).not.toMatch(/from\s*"(node:)?tls"/);
    // svc's own require of it is one, src/tls-connections/node-tls.ts, shared by the client and the
    // agent's server (a createRequire's call; the bundled CommonJS packages' requires are their own).
    expect(text.match(/\(import\.meta\.url\)\("node:tls"\)/g)).toHaveLength(1);
  });

  it.each(NODEAGENT_LAZY)('loads %s from node_modules when first used', (name) => {
    // `import("ws")`, or a require made by createRequire: `(import.meta.url)("cbor-x")`.
    expect(new RegExp(`(import|\\))\\("${name}"\\)`).test(text)).toBe(true);
  });

  it('runs: --version names svc\'s version, --help the agent\'s options, a bad flag exits 1', () => {
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(`nodeagent v${SVC_VERSION}`);
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--pod-manifest-path');
    const bad = spawnSync(bin, ['--oom-score-adj=5000'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--oom-score-adj');
  });
});
