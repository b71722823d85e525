/**
 * `svc dashboard` as a user runs it: a child process on a svcconfig, printing its URL, serving
 * the cluster read-only through its proxy, stopping on SIGINT; bad flags exit 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIO } from '../../src/cli/command.js';
import { main } from '../../src/cli/svc-command.js';
import { writeSvcconfig } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

let cluster: TestCluster;
let dir: string;
beforeAll(async () => {
  cluster = await startTestCluster();
  dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function capture(): CommandIO & { text: () => string; errText: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out: (line) => void out.push(line), err: (line) => void err.push(line), text: () => out.join('\n'), errText: () => err.join('\n') };
}

describe('svc dashboard', () => {
  it('is listed by svc --help and shows its flags on --help', async () => {
    const list = capture();
    await main(['--help'], list);
    expect(list.text()).toMatch(/\n {2}dashboard +Serve the web dashboard/);
    const help = capture();
    expect(await main(['dashboard', '--help'], help)).toBe(0);
    expect(help.text()).toMatch(/^Usage: svc dashboard \[flags\]/);
    expect(help.text()).toMatch(/--port int +.*\(default 8001\)/s);
  });

  it('exits 2 naming the flag on a bad port', async () => {
    const io = capture();
    expect(await main(['dashboard', '--port=70000'], io)).toBe(2);
    expect(io.errText()).toContain('--port');
  });

  it('exits 2 naming the flag when --controller-manager is not an https URL', async () => {
    for (const bad of ['http://127.0.0.1:10257', 'not a url']) {
      const io = capture();
      expect(await main(['dashboard', `--controller-manager=${bad}`, '--port=0'], io)).toBe(2);
      expect(io.errText()).toContain('--controller-manager');
    }
  });

  it('exits 1 naming the file when the svcconfig does not exist', async () => {
    const io = capture();
    expect(await main(['dashboard', `--svcconfig=${join(dir, 'missing')}`, '--port=0'], io)).toBe(1);
    expect(io.errText()).toContain(join(dir, 'missing'));
  });

  it('serves the cluster read-only on 127.0.0.1 with the svcconfig credential, and stops on SIGINT', async () => {
    const svcconfig = join(dir, 'admin.svcconfig');
    await writeSvcconfig(svcconfig, { name: 'test', server: cluster.url, caData: cluster.caPem, token: cluster.token });
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'dashboard', `--svcconfig=${svcconfig}`, '--port=0'], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let url: string | undefined;
      for await (const line of createInterface({ input: child.stdout })) {
        url = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(line)?.[1];
        if (url !== undefined) break;
      }
      expect(url, stderr.join('')).toBeDefined();
      const page = await request(url!);
      expect(page.statusCode).toBe(200);
      expect(await page.body.text()).toContain('/ui/app.js');
      const namespaces = await request(`${url!}api/v1/namespaces`);
      expect(namespaces.statusCode).toBe(200);
      expect(JSON.stringify(await namespaces.body.json())).toContain('"name":"default"');
      const write = await request(`${url!}api/v1/namespaces`, { method: 'POST', body: JSON.stringify({ metadata: { name: 'nope' } }) });
      expect(write.statusCode).toBe(405);
      expect(await write.body.json()).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
