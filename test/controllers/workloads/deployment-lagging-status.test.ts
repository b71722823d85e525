// The Deployment loop alone against a real svc-apiserver, with the test writing the ReplicaSets'
// status by hand: a status that still counts the pods a scale-down removed (the ReplicaSet loop has
// not caught up yet) must not make the rollout scale its old set back up. Upstream refuses that
// step too ("invalid request to scale down"); an old set is only ever scaled down by a rollout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet } from '../../../src/api/index.js';
import { builtin, Client, Informer } from '../../../src/client/index.js';
import { deploymentController } from '../../../controllers/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { createNamespace } from './replica-fixtures.js';

const NS = 'lagging';
let server: TestServer;
let client: Client;
let loop: LoopHarness;

const image = (rs: ReplicaSet) => rs.spec.template.spec?.containers[0]?.image;
const sets = async () => (await client.list(builtin.replicaSets, { namespace: NS })).items;
const setOf = async (img: string) => (await sets()).find((rs) => image(rs) === img);

/** Writes a set's status as if `available` of its pods were ready and available. */
async function setAvailable(rs: ReplicaSet, replicas: number, available: number): Promise<void> {
  const fresh = await client.get(builtin.replicaSets, rs.metadata.name!, { namespace: NS });
  await client.updateStatus(
    builtin.replicaSets,
    { ...fresh, status: { replicas, readyReplicas: available, availableReplicas: available, fullyLabeledReplicas: replicas, observedGeneration: fresh.metadata.generation } },
    { namespace: NS },
  );
}

beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  client = new Client({ server: server.url!, token: TOKEN });
  await createNamespace(client, NS);
  loop = loopHarness(client);
  loop.run(deploymentController(loop.ctx));
});
afterAll(async () => {
  loop.stop();
  await client.destroy();
  await server.close();
});

describe('deployment-controller with a ReplicaSet status that lags its spec', () => {
  it('never scales the old set up while rolling', async () => {
    const deployment: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: 10,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'v1' }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      },
    };
    await client.create(builtin.deployments, deployment, { namespace: NS });
    await eventually(async () => (await setOf('v1'))?.spec.replicas === 10, 'the first ReplicaSet at 10');
    await setAvailable((await setOf('v1'))!, 10, 10);

    // Every size the old set is given from here on, in order.
    const oldSizes: number[] = [];
    const watch = new Informer(client, builtin.replicaSets, { namespace: NS });
    watch.events$.subscribe((event) => {
      if (event.type === 'updated' && image(event.object) === 'v1') {
        const size = event.object.spec.replicas ?? 1;
        if (oldSizes.at(-1) !== size) oldSizes.push(size);
      }
    });
    await watch.waitForSync();

    // A merge patch, as `kubectl set image` sends: the loop writes the Deployment's status
    // meanwhile, so a read-then-update would race it for the resourceVersion.
    await client.patch(builtin.deployments, 'web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'v2' }] } } } }, { namespace: NS, type: 'merge' });
    // maxSurge 3, maxUnavailable 2: the old set scaled down to 8 and the new one up to 3 (then 5,
    // as the surge allows 13 in all); no new pod is available, so the rollout stops there.
    await eventually(async () => (await setOf('v1'))?.spec.replicas === 8 && ((await setOf('v2'))?.spec.replicas ?? 0) >= 3, 'the rollout at its first step');
    // The new set's pods become available while the old set's status still counts 10 available
    // pods of its 8 (its own loop has not caught up): the next step reads that status.
    const fresh = (await setOf('v2'))!;
    await setAvailable(fresh, fresh.spec.replicas!, fresh.spec.replicas!);
    await eventually(async () => ((await setOf('v1'))?.spec.replicas ?? 8) < 8, 'the old set scaled down further');

    expect(oldSizes[0]).toBe(8);
    // Strictly decreasing: no step put a pod back on the old template.
    for (let i = 1; i < oldSizes.length; i += 1) expect(oldSizes[i]).toBeLessThan(oldSizes[i - 1]!);
    watch.stop();
  });
});
