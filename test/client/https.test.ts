import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, filter } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { builtin, Client, loadSvcconfig } from '../../src/client/index.js';
import { cm } from './support.js';

let dir: string;
let server: RunningApiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-client-https-'));
  server = await startApiServer(['--storage=sqlite', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the client over HTTPS with the admin svcconfig', () => {
  it('connects with the token and the CA from admin.svcconfig, and watches', async () => {
    const client = await Client.fromSvcconfig(server.svcconfigPath);
    try {
      expect(server.url.startsWith('https://')).toBe(true);
      const created = await client.create(builtin.configMaps, cm('over-tls'));
      expect((await client.get(builtin.configMaps, 'over-tls')).metadata.uid).toBe(created.metadata.uid);
      // Seen in the list (INIT_APPLY) or live (ADDED), whichever comes first.
      const seen = firstValueFrom(
        client.watch$(builtin.configMaps, { namespace: 'default' }).pipe(filter((e) => (e.type === 'ADDED' || e.type === 'INIT_APPLY') && e.object.metadata.name === 'live')),
      );
      await client.create(builtin.configMaps, cm('live'));
      expect((await seen).type).toMatch(/^(ADDED|INIT_APPLY)$/);
    } finally {
      await client.destroy();
    }
  });

  it('refuses a server whose certificate no configured CA signed', async () => {
    const target = await loadSvcconfig(server.svcconfigPath);
    const client = new Client({ server: target.server, token: target.token });
    await expect(client.get(builtin.configMaps, 'x')).rejects.toThrow();
    await client.destroy();
  });

  it('reads the CA and the token from files a svcconfig names', async () => {
    const target = await loadSvcconfig(server.svcconfigPath);
    writeFileSync(join(dir, 'ca.crt'), target.caData!);
    writeFileSync(join(dir, 'token'), `${target.token!}\n`);
    const path = join(dir, 'files.svcconfig');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "' + target.server + '", certificate-authority: ca.crt}}]',
        'users: [{name: u, user: {tokenFile: token}}]',
        'contexts: [{name: x, context: {cluster: c, user: u, namespace: svc-public}}]',
        'current-context: x',
      ].join('\n'),
    );
    const client = await Client.fromSvcconfig(path);
    try {
      expect(client.namespace).toBe('svc-public');
      const made = await client.create(builtin.configMaps, cm('from-files'));
      expect(made.metadata.namespace).toBe('svc-public');
    } finally {
      await client.destroy();
    }
  });

  it('reports a wrong token as a 401 StatusError', async () => {
    const client = await Client.fromSvcconfig(server.svcconfigPath, { token: 'nope' });
    await expect(client.get(builtin.configMaps, 'x')).rejects.toMatchObject({ reason: 'Unauthorized', code: 401 });
    await client.destroy();
  });
});
