import { access, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Client, loadSvcconfig, writeSvcconfig } from '../../client/index.js';
import { loadPki } from './lazy-pki.js';
import { credentialPaths, readCredentials, writeCredentials } from './credential-files.js';
import { requestCertificate } from './request-certificate.js';

/**
 * TLS bootstrap (`--bootstrap-svcconfig`), as the kubelet's: when the `--svcconfig` file does not
 * exist, the agent uses the bootstrap config (a bootstrap token, usually) to ask the node client
 * signer for a certificate of `system:node:<node name>` in `system:nodes`, stores it in the cert
 * dir and writes `--svcconfig` pointing at it — the bootstrap credential is not used again. A pair
 * already in the cert dir (an earlier bootstrap whose svcconfig was removed) is used as it is.
 */

export interface TlsBootstrapOptions {
  readonly svcconfigPath: string;
  readonly bootstrapSvcconfigPath: string;
  readonly certDir: string;
  readonly nodeName: string;
  readonly signal?: AbortSignal | undefined;
  readonly log?: ((message: string) => void) | undefined;
}

const exists = (path: string) => access(path).then(() => true, () => false);

/** Writes `--svcconfig` from the bootstrap config when it is missing; whether it did. */
export async function bootstrapClientCredentials(o: TlsBootstrapOptions): Promise<boolean> {
  if (await exists(o.svcconfigPath)) return false;
  const target = await loadSvcconfig(o.bootstrapSvcconfigPath);
  let pair = await readCredentials(o.certDir, 'client');
  if (!pair) {
    const client = new Client({
      server: target.server,
      servers: target.servers,
      token: target.token,
      caData: target.caData,
      clientCertificate: target.clientCertificate,
      clientKey: target.clientKey,
      insecureSkipTlsVerify: target.insecureSkipTlsVerify,
      userAgent: 'nodeagent/bootstrap',
    });
    try {
      const { NODE_CLIENT_SIGNER, NODE_USER_PREFIX, NODES_GROUP } = await loadPki();
      pair = await requestCertificate(client, {
        signerName: NODE_CLIENT_SIGNER,
        usages: ['digital signature', 'client auth'],
        commonName: `${NODE_USER_PREFIX}${o.nodeName}`,
        organizations: [NODES_GROUP],
        signal: o.signal,
        onCreated: (name) => o.log?.(`TLS bootstrap: waiting for certificate signing request ${name}`),
      });
    } finally {
      await client.close();
    }
    await writeCredentials(o.certDir, 'client', pair);
  }
  const paths = credentialPaths(o.certDir, 'client');
  await mkdir(dirname(o.svcconfigPath), { recursive: true });
  await writeSvcconfig(o.svcconfigPath, {
    name: 'default',
    server: target.server,
    servers: target.servers,
    caData: target.caData,
    insecureSkipTlsVerify: target.insecureSkipTlsVerify,
    clientCertificateFile: paths.certFile,
    clientKeyFile: paths.keyFile,
  });
  o.log?.(`TLS bootstrap: client certificate stored in ${o.certDir}, ${o.svcconfigPath} written`);
  return true;
}
