// --permit-port-sharing: two managers on one port with SO_REUSEPORT where Node can set it
// (22.12 and later); on Node 20 the flag is accepted and the second bind fails as without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_SECURE_PORT, startCluster, type Cluster } from './support.js';
import { scratchDir } from '../../support/scratch.js';

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const nodeHasReusePort = major > 22 || (major === 22 && minor >= 12);

describe('--permit-port-sharing', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(async () => {
    await cluster.close();
  });

  it(nodeHasReusePort ? 'lets a second manager listen on the same port' : 'is accepted, and a second bind of the port still fails on Node 20', async () => {
    const args = ['--bind-address=127.0.0.1', `--cert-dir=${scratchDir('svc-cm-reuse-')}`, '--leader-elect=false', '--permit-port-sharing'];
    const first = await cluster.manager([ANY_SECURE_PORT, ...args]);
    const port = first.serving!.port;
    expect(port).toBeGreaterThan(0);
    const second = cluster.manager([`--secure-port=${port}`, ...args]);
    if (nodeHasReusePort) expect((await second).serving?.port).toBe(port);
    else await expect(second).rejects.toThrow('the address is in use');
  });
});
