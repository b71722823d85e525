import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSvcconfig, SvcconfigError } from '../../src/client/index.js';
import { scratchDir } from '../support/scratch.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

function config(user: string): string {
  const dir = scratchDir('svc-client-config-');
  writeFileSync(join(dir, 'client.key'), KEY);
  const path = join(dir, 'config');
  writeFileSync(
    path,
    ['apiVersion: v1', 'kind: Config', 'clusters: [{name: c, cluster: {server: "https://h:1"}}]', `users: [{name: u, user: ${user}}]`, 'contexts: [{name: x, context: {cluster: c, user: u}}]', 'current-context: x'].join('\n'),
  );
  return path;
}

describe('loadSvcconfig: client certificates', () => {
  it('reads a client certificate inline and its key from a file next to the config', async () => {
    const path = config(`{client-certificate-data: ${Buffer.from(CERT).toString('base64')}, client-key: client.key}`);
    expect(await loadSvcconfig(path)).toMatchObject({ clientCertificate: CERT, clientKey: KEY, token: undefined });
  });

  it('refuses a certificate without its key', async () => {
    const path = config(`{client-certificate-data: ${Buffer.from(CERT).toString('base64')}}`);
    await expect(loadSvcconfig(path)).rejects.toBeInstanceOf(SvcconfigError);
    await expect(loadSvcconfig(path)).rejects.toThrow(/without the other/);
  });
});
