// The horizontal pod autoscaler loop as the controller manager runs it, on a test cluster (no
// node agents, so no resource metrics): a target kind without a scale subresource, a target that
// does not exist, metrics that cannot be read, a target scaled to zero, bounds outside the
// replica count; and the API server's 422 for specs it cannot run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HorizontalPodAutoscaler } from '../../../src/api/index.js';
import { builtin, resource, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../support.js';

let cluster: TestCluster;
let client: Client;
const ns = 'default';

beforeAll(async () => {
  cluster = await startTestCluster({
    controllers: {
      controllers: ['horizontal-pod-autoscaler-controller', 'serviceaccount-controller'],
      // One second between syncs: the test waits for real syncs, not for a timer of 15 s.
      loopSettings: { horizontalPodAutoscalerSyncPeriodMs: 1000 },
    },
  });
  client = cluster.client;
});
afterAll(() => cluster.stop());

const hpa = (name: string, target: { apiVersion: string; kind: string; name: string }, extra: Record<string, unknown> = {}): HorizontalPodAutoscaler =>
  ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: ns },
    spec: { scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }], ...extra },
  }) as HorizontalPodAutoscaler;

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m' } } }] } },
  },
});

async function condition(name: string, type: string) {
  const current = await client.get(builtin.horizontalPodAutoscalers, name, { namespace: ns });
  return current.status?.conditions?.find((c) => c.type === type);
}

describe('horizontal pod autoscaler: conditions', () => {
  it('a kind without a scale subresource: AbleToScale False, naming why', async () => {
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns } });
    await client.create(builtin.horizontalPodAutoscalers, hpa('no-scale', { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' }));
    await eventually(async () => (await condition('no-scale', 'AbleToScale'))?.status === 'False', 'AbleToScale False');
    const able = await condition('no-scale', 'AbleToScale');
    expect(able?.reason).toBe('FailedGetScale');
    expect(able?.message).toBe("the HPA controller was unable to get the target's current scale: ConfigMap (configmaps) has no scale subresource: it cannot be autoscaled");
    // Later syncs (one a second here) find the status right and write nothing.
    const before = (await client.get(builtin.horizontalPodAutoscalers, 'no-scale', { namespace: ns })).metadata.resourceVersion;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await client.get(builtin.horizontalPodAutoscalers, 'no-scale', { namespace: ns })).metadata.resourceVersion).toBe(before);
  });

  it('a kind that is not served, and a target that does not exist: AbleToScale False', async () => {
    await client.create(builtin.horizontalPodAutoscalers, hpa('no-kind', { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' }));
    await client.create(builtin.horizontalPodAutoscalers, hpa('no-target', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'absent' }));
    await eventually(async () => (await condition('no-kind', 'AbleToScale'))?.status === 'False', 'AbleToScale False (no kind)');
    expect((await condition('no-kind', 'AbleToScale'))?.message).toContain('no matches for kind "Widget" in group "example.com"');
    await eventually(async () => (await condition('no-target', 'AbleToScale'))?.status === 'False', 'AbleToScale False (no target)');
    expect((await condition('no-target', 'AbleToScale'))?.message).toContain('"absent" not found');
  });

  it('a target whose pods have no metrics: ScalingActive False, replicas left alone', async () => {
    await client.create(builtin.deployments, deployment('web', 2) as never);
    await client.create(builtin.horizontalPodAutoscalers, hpa('web', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }));
    await eventually(async () => (await condition('web', 'ScalingActive'))?.status === 'False', 'ScalingActive False');
    const active = await condition('web', 'ScalingActive');
    expect(active?.reason).toBe('FailedGetResourceMetric');
    expect((await condition('web', 'AbleToScale'))?.status).toBe('True');
    const status = (await client.get(builtin.horizontalPodAutoscalers, 'web', { namespace: ns })).status;
    expect(status?.currentReplicas).toBe(2);
    expect((await client.get(builtin.deployments, 'web', { namespace: ns })).spec?.replicas).toBe(2);
  });

  it('replicas outside min and max are brought within them through the scale subresource', async () => {
    await client.create(builtin.deployments, deployment('big', 9) as never);
    await client.create(builtin.horizontalPodAutoscalers, hpa('big', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'big' }, { maxReplicas: 4 }));
    await eventually(async () => (await client.get(builtin.deployments, 'big', { namespace: ns })).spec?.replicas === 4, 'scaled to maxReplicas');
    await eventually(async () => {
      const status = (await client.get(builtin.horizontalPodAutoscalers, 'big', { namespace: ns })).status;
      return status?.desiredReplicas === 4 && status.lastScaleTime !== undefined;
    }, 'status with the new size');
    expect((await condition('big', 'AbleToScale'))?.reason).toBe('SucceededRescale');
  });

  it('a StatefulSet and a custom resource with a scale subresource are scaled through it too', async () => {
    await client.create(builtin.statefulSets, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: ns },
      spec: { replicas: 0, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    } as never);
    // minReplicas 0 would be scale-to-zero (alpha upstream); 1 with a target at 0 is ScalingDisabled, so start it at 7 above max.
    await client.patch(builtin.statefulSets, 'db', { spec: { replicas: 7 } }, { namespace: ns, type: 'merge' });
    await client.create(builtin.horizontalPodAutoscalers, hpa('db', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, { maxReplicas: 3 }));
    await eventually(async () => (await client.get(builtin.statefulSets, 'db', { namespace: ns })).spec?.replicas === 3, 'the StatefulSet scaled to maxReplicas');

    const crds = resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false });
    await client.create(crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size', labelSelectorPath: '.status.selector' } },
          },
        ],
      },
    } as never);
    const widgets = resource({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true });
    await eventually(async () => {
      try {
        await client.create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: ns }, spec: { size: 6 } } as never);
        return true;
      } catch {
        return false;
      }
    }, 'the CRD served');
    await client.create(builtin.horizontalPodAutoscalers, hpa('widget', { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' }, { maxReplicas: 2 }));
    await eventually(async () => ((await client.get(widgets, 'w', { namespace: ns })) as { spec?: { size?: number } }).spec?.size === 2, 'the Widget scaled to maxReplicas');
    // The status is written after the scale: a sync before the CRD was discovered may have left
    // FailedGetScale there until this sync's status lands.
    await eventually(async () => (await condition('widget', 'AbleToScale'))?.reason === 'SucceededRescale', 'AbleToScale SucceededRescale');
  });

  it('a custom resource whose scale subresource is served only at a version that is not the preferred one is scaled at that version', async () => {
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    const crds = resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false });
    // v1 is preferred (Kubernetes' version order) and has no scale subresource; v1beta1 has one.
    await client.create(crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.scaling.example.com' },
      spec: {
        group: 'scaling.example.com',
        names: { plural: 'pools', singular: 'pool', kind: 'Pool', listKind: 'PoolList' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema, subresources: { status: {} } },
          { name: 'v1beta1', served: true, storage: false, schema, subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } } },
        ],
      },
    } as never);
    const poolsV1beta1 = resource({ group: 'scaling.example.com', version: 'v1beta1', resource: 'pools', namespaced: true });
    await eventually(async () => {
      try {
        await client.create(poolsV1beta1, { apiVersion: 'scaling.example.com/v1beta1', kind: 'Pool', metadata: { name: 'p', namespace: ns }, spec: { size: 8 } } as never);
        return true;
      } catch {
        return false;
      }
    }, 'the CRD served');
    await client.create(builtin.horizontalPodAutoscalers, hpa('pool-preferred', { apiVersion: 'scaling.example.com/v1', kind: 'Pool', name: 'p' }));
    await client.create(builtin.horizontalPodAutoscalers, hpa('pool', { apiVersion: 'scaling.example.com/v1beta1', kind: 'Pool', name: 'p' }, { maxReplicas: 3 }));
    await eventually(async () => ((await client.get(poolsV1beta1, 'p', { namespace: ns })) as { spec?: { size?: number } }).spec?.size === 3, 'the Pool scaled to maxReplicas at v1beta1');
    await eventually(async () => (await condition('pool', 'AbleToScale'))?.reason === 'SucceededRescale', 'AbleToScale SucceededRescale');
    // The same kind at the preferred version has no scale subresource, and is named as such.
    await eventually(async () => (await condition('pool-preferred', 'AbleToScale'))?.status === 'False', 'AbleToScale False at v1');
    expect((await condition('pool-preferred', 'AbleToScale'))?.message).toContain('Pool (pools.scaling.example.com) has no scale subresource');
  });

  it('a target scaled to zero: ScalingActive False (ScalingDisabled)', async () => {
    await client.create(builtin.deployments, deployment('zero', 0) as never);
    await client.create(builtin.horizontalPodAutoscalers, hpa('zero', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'zero' }));
    await eventually(async () => (await condition('zero', 'ScalingActive'))?.reason === 'ScalingDisabled', 'ScalingDisabled');
    expect((await client.get(builtin.deployments, 'zero', { namespace: ns })).spec?.replicas).toBe(0);
  });
});

describe('horizontal pod autoscaler: bad specs are 422', () => {
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  const rejected = async (object: HorizontalPodAutoscaler) => {
    try {
      await client.create(builtin.horizontalPodAutoscalers, object);
    } catch (error) {
      return error as { code: number; reason: string; message: string };
    }
    throw new Error('created');
  };

  it('minReplicas above maxReplicas', async () => {
    const error = await rejected(hpa('bad-bounds', target, { minReplicas: 5, maxReplicas: 2 }));
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.message).toContain('spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`');
  });

  it('an unknown metric type, a Resource metric without its source or target', async () => {
    const unknown = await rejected(hpa('bad-type', target, { metrics: [{ type: 'Bogus' }] }));
    expect(unknown.code).toBe(422);
    expect(unknown.message).toContain('spec.metrics[0].type: Unsupported value: "Bogus"');
    const noSource = await rejected(hpa('bad-source', target, { metrics: [{ type: 'Resource' }] }));
    expect(noSource.code).toBe(422);
    expect(noSource.message).toContain('spec.metrics[0].resource: Required value');
    const noTarget = await rejected(hpa('bad-target', target, { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] }));
    expect(noTarget.message).toContain('spec.metrics[0].resource.target.averageUtilization: Required value');
  });

  it('bad behavior policies', async () => {
    const error = await rejected(
      hpa('bad-behavior', target, { behavior: { scaleDown: { stabilizationWindowSeconds: 7200, selectPolicy: 'Sometimes', policies: [{ type: 'Pods', value: 0, periodSeconds: 15 }] } } }),
    );
    expect(error.code).toBe(422);
    expect(error.message).toContain('spec.behavior.scaleDown.stabilizationWindowSeconds');
    expect(error.message).toContain('spec.behavior.scaleDown.selectPolicy: Unsupported value: "Sometimes"');
    expect(error.message).toContain('spec.behavior.scaleDown.policies[0].value');
  });

  it('stores nothing for a rejected spec', async () => {
    const list = await client.list(builtin.horizontalPodAutoscalers, { namespace: ns });
    expect(list.items.map((h) => h.metadata.name).filter((n) => n?.startsWith('bad-'))).toEqual([]);
  });
});

describe('device-taint-eviction', () => {
  it('runs only behind the DRADeviceTaints gate, off by default', async () => {
    const off = await startTestCluster({ controllers: { controllers: ['device-taint-eviction-controller'] } });
    try {
      expect(off.manager?.running).toEqual([]);
      expect(off.manager?.notBuilt).toEqual([]);
    } finally {
      await off.stop();
    }
    const on = await startTestCluster({ controllers: { controllers: ['device-taint-eviction-controller'], loopSettings: { draDeviceTaints: true } } });
    try {
      expect(on.manager?.running).toEqual(['device-taint-eviction-controller']);
    } finally {
      await on.stop();
    }
  });
});
