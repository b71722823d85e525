import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';

const NOT_READY = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const UNREACHABLE = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

const createPod = (client: Client, name: string, tolerations?: Pod['spec']['tolerations']) =>
  client.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...(tolerations ? { tolerations } : {}) } } as Pod);

// DefaultTolerationSeconds on a real API server: what a new pod's tolerations become.
describe('DefaultTolerationSeconds admission', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(() => cluster.stop());

  it('gives a pod without them 300 s tolerations of not-ready and unreachable', async () => {
    expect((await createPod(cluster.client, 'plain')).spec.tolerations).toEqual([NOT_READY, UNREACHABLE]);
  });

  it("keeps a pod's own toleration of one and adds only the other", async () => {
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 6 };
    expect((await createPod(cluster.client, 'own', [own])).spec.tolerations).toEqual([own, NOT_READY]);
  });

  it('adds nothing to a pod that tolerates every taint, or every NoExecute one', async () => {
    expect((await createPod(cluster.client, 'all', [{ operator: 'Exists' }])).spec.tolerations).toEqual([{ operator: 'Exists' }]);
    expect((await createPod(cluster.client, 'all-noexec', [{ operator: 'Exists', effect: 'NoExecute' }])).spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
  });

  it('leaves updates alone, and adds nothing when the plugin is disabled', async () => {
    const pod = await cluster.client.get(builtin.pods, 'plain', { namespace: 'default' });
    const updated = await cluster.client.update(builtin.pods, { ...pod, metadata: { ...pod.metadata, labels: { a: 'b' } } });
    expect(updated.spec.tolerations).toEqual([NOT_READY, UNREACHABLE]);
    await using off = await startTestCluster({ apiServer: { admissionPlugins: { disable: ['DefaultTolerationSeconds'] } } });
    expect((await createPod(off.client, 'bare')).spec.tolerations).toBeUndefined();
  });
});
