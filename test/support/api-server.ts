// svc-apiserver started in-process (src/cli's startApiServer), as a cluster whose serviceaccount
// loop has run: the system namespaces have their `default` ServiceAccount, which pods need. The
// API server does not make it (the controller manager does); suites that run pods against the
// API server alone start it through here.
import { startApiServer as startDaemon, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import type { ApiServerConfig } from '../../src/apiserver/index.js';
import { Client } from '../../src/client/index.js';
import { createDefaultAccount } from './namespace-with-account.js';

export type { RunningApiServer };

const SYSTEM_NAMESPACES = ['default', 'svc-system', 'svc-public', 'svc-node-lease'];

export async function startApiServer(options: readonly string[] | ApiServerConfig): Promise<RunningApiServer> {
  const server = await startDaemon(options);
  const client = await Client.fromSvcconfig(server.svcconfigPath);
  try {
    for (const namespace of SYSTEM_NAMESPACES) await createDefaultAccount(client, namespace);
  } catch (error) {
    await server.close();
    throw error;
  } finally {
    await client.destroy();
  }
  return server;
}
