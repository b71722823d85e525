// `svc up` publishes cluster-info in svc-public as kubeadm does (a kubeconfig naming the server
// and its CA, readable without credentials) and runs the policy loops: the bootstrap signer signs
// cluster-info for a bootstrap token, clusterrole-aggregation fills the built-in view, and
// resourcequota counts a quota's namespace.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, builtin, loadSvcconfig } from '../../src/client/index.js';
import { eventually } from '../controllers/manager/support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-up-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc up: cluster-info and the policy loops', () => {
  it('publishes a signed cluster-info anyone may read, and runs clusterrole-aggregation and resourcequota', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc.ts', 'up', `--data-dir=${dir}`, '--secure-port=0', '--storage=sqlite', '--disable-agent', '--disable-dashboard'], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let client: Client | undefined;
    try {
      for await (const line of createInterface({ input: child.stdout })) if (line.startsWith('  kubectl')) break;
      const svcconfig = join(dir, 'admin.svcconfig');
      const target = await loadSvcconfig(svcconfig);
      client = await Client.fromSvcconfig(svcconfig);
      const c = client;

      // cluster-info: the server and CA of the admin svcconfig, nothing else.
      const info = await c.get(builtin.configMaps, 'cluster-info', { namespace: 'svc-public' });
      const kubeconfig = info.data?.['kubeconfig'] ?? '';
      const parsed = parse(kubeconfig) as { kind: string; clusters: { name: string; cluster: Record<string, string> }[]; users: unknown };
      expect(parsed.kind).toBe('Config');
      expect(parsed.clusters).toHaveLength(1);
      expect(parsed.clusters[0]!.cluster['server']).toBe(target.server);
      expect(Buffer.from(parsed.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString()).toBe(target.caData);
      expect(parsed.users).toBeNull();

      // Signed per bootstrap token by the bootstrap-signer loop.
      const data = Object.fromEntries(Object.entries({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-signing': 'true' }).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
      await c.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'svc-system' }, type: 'bootstrap.kubernetes.io/token', data }, { namespace: 'svc-system' });
      let jws = '';
      await eventually(async () => {
        jws = (await c.get(builtin.configMaps, 'cluster-info', { namespace: 'svc-public' })).data?.['jws-kubeconfig-abcdef'] ?? '';
        return jws !== '';
      }, 'the signature of cluster-info');
      const [header, , signature] = jws.split('.');
      const expected = createHmac('sha256', 'abcdef.0123456789abcdef').update(`${header}.${Buffer.from(kubeconfig).toString('base64url')}`).digest('base64url');
      expect(signature).toBe(expected);

      // Anyone, without credentials, may read it (and only it).
      const dispatcher = new Agent({ connect: { ca: target.caData } });
      try {
        const anonymous = await request(`${target.server}/api/v1/namespaces/svc-public/configmaps/cluster-info`, { dispatcher });
        expect(anonymous.statusCode).toBe(200);
        expect(((await anonymous.body.json()) as { data: Record<string, string> }).data['kubeconfig']).toBe(kubeconfig);
        const other = await request(`${target.server}/api/v1/namespaces/svc-public/configmaps`, { dispatcher });
        expect(other.statusCode).toBe(403);
        await other.body.dump();
      } finally {
        await dispatcher.close();
      }

      // The policy loops run: view holds the aggregate-to-view rules, a quota is counted.
      await eventually(async () => ((await c.get(builtin.clusterRoles, 'view')).rules ?? []).length > 0, 'view aggregated');
      await c.create(builtin.resourceQuotas, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { 'count/serviceaccounts': '10' } } }, { namespace: 'default' });
      await eventually(async () => (await c.get(builtin.resourceQuotas, 'q', { namespace: 'default' })).status?.used?.['count/serviceaccounts'] === '1', 'the quota counted');
      expect(stderr.join('')).toContain('started resourcequota-controller');

      child.kill('SIGINT');
      expect(await exited, stderr.join('')).toBe(0);
    } finally {
      await client?.destroy();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
