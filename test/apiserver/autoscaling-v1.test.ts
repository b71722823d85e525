// autoscaling/v1 HorizontalPodAutoscalers: served by conversion from the stored autoscaling/v2,
// as upstream (targetCPUUtilizationPercentage ↔ the cpu Utilization metric, the v2-only fields in
// the autoscaling.alpha.kubernetes.io annotations), through every read and write path, and to kubectl.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobuf, encodeProtobuf } from '../../src/encoding/index.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';
import { isStream, openWatch } from '../support/watch-client.js';
import { startTestServer, TOKEN, type TestServer } from './harness.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer('memory');
});
afterAll(async () => {
  await s.close();
});

const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

const v1Hpa = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'autoscaling/v1',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, ...spec },
});

describe('autoscaling/v1 HorizontalPodAutoscaler', () => {
  it('is discovered beside v2, which stays preferred', async () => {
    const group = (await s.call('GET', '/apis/autoscaling')).body;
    expect(group.versions.map((v: { version: string }) => v.version)).toEqual(['v2', 'v1']);
    expect(group.preferredVersion.version).toBe('v2');
    const resources = (await s.call('GET', '/apis/autoscaling/v1')).body.resources.map((r: { name: string }) => r.name);
    expect(resources).toEqual(expect.arrayContaining(['horizontalpodautoscalers', 'horizontalpodautoscalers/status']));
  });

  it('stores a v1 CPU target as v2\'s cpu Utilization metric and reads it back the same', async () => {
    const created = await s.call('POST', V1, v1Hpa('cpu', { targetCPUUtilizationPercentage: 60 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.apiVersion).toBe('autoscaling/v1');
    expect(created.body.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    expect(created.body.metadata.annotations).toBeUndefined();
    const v2 = (await s.call('GET', `${V2}/cpu`)).body;
    expect(v2.apiVersion).toBe('autoscaling/v2');
    expect(v2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    expect(v2.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    const again = (await s.call('GET', `${V1}/cpu`)).body;
    expect(again.spec.targetCPUUtilizationPercentage).toBe(60);
  });

  it('gives a v1 object without a target upstream\'s default of 80 % CPU', async () => {
    expect((await s.call('POST', V1, v1Hpa('default-target'))).status).toBe(201);
    expect((await s.call('GET', `${V2}/default-target`)).body.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    expect((await s.call('GET', `${V1}/default-target`)).body.spec.targetCPUUtilizationPercentage).toBe(80);
  });

  it('carries the v2-only fields in annotations, and a v1 get-and-put keeps them', async () => {
    const behavior = { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } };
    const metrics = [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
    ];
    const made = await s.call('POST', V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'rich' }, spec: { scaleTargetRef: target, minReplicas: 1, maxReplicas: 9, metrics, behavior } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const v1 = (await s.call('GET', `${V1}/rich`)).body;
    expect(v1.spec.targetCPUUtilizationPercentage).toBe(70);
    expect(v1.spec.metrics).toBeUndefined();
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '100Mi' } }]);
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior'])).toEqual(behavior);

    // A v1 client changes maxReplicas and writes the whole object back.
    const put = await s.call('PUT', `${V1}/rich`, { ...v1, spec: { ...v1.spec, maxReplicas: 12 } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const v2 = (await s.call('GET', `${V2}/rich`)).body;
    expect(v2.spec.maxReplicas).toBe(12);
    expect(v2.spec.behavior).toEqual(behavior);
    // The other metrics first, then the CPU target (upstream's order).
    expect(v2.spec.metrics).toEqual([metrics[0], metrics[1]]);
    // The round-trip annotations are never stored.
    expect(v2.metadata.annotations).toBeUndefined();
  });

  it('shows the v2 status as v1\'s currentCPUUtilizationPercentage, with current metrics and conditions in annotations', async () => {
    const status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 91, averageValue: '455m' } } },
        { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '7' } } },
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    };
    expect((await s.call('POST', V1, v1Hpa('observed', { targetCPUUtilizationPercentage: 50 }))).status).toBe(201);
    const current = (await s.call('GET', `${V2}/observed`)).body;
    const written = await s.call('PUT', `${V2}/observed/status`, { ...current, status });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const v1 = (await s.call('GET', `${V1}/observed`)).body;
    expect(v1.status).toEqual({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 91 });
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/current-metrics'])).toEqual([
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 91, currentAverageValue: '455m' } },
      { type: 'Pods', pods: { metricName: 'qps', currentAverageValue: '7' } },
    ]);
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/conditions'])).toEqual(status.conditions);
    // The v1 status subresource writes back without losing what v2 holds.
    const v1Put = await s.call('PUT', `${V1}/observed/status`, { ...v1, status: { ...v1.status, desiredReplicas: 4 } });
    expect(v1Put.status, JSON.stringify(v1Put.body)).toBe(200);
    const v2 = (await s.call('GET', `${V2}/observed`)).body;
    expect(v2.status.desiredReplicas).toBe(4);
    expect(v2.status.currentMetrics).toEqual(status.currentMetrics);
    expect(v2.status.conditions).toEqual(status.conditions);
  });

  it('answers and takes v1 in protobuf (its own messages, not v2\'s)', async () => {
    const PB = 'application/vnd.kubernetes.protobuf';
    const body = encodeProtobuf(v1Hpa('wire', { targetCPUUtilizationPercentage: 35 }));
    const created = await s.app.inject({ method: 'POST', url: V1, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': PB, accept: PB }, payload: Buffer.from(body) });
    expect(created.statusCode, created.body).toBe(201);
    const decoded = decodeProtobuf(created.rawPayload) as { apiVersion: string; spec: Record<string, unknown> };
    expect(decoded.apiVersion).toBe('autoscaling/v1');
    expect(decoded.spec['targetCPUUtilizationPercentage']).toBe(35);
    const list = await s.app.inject({ method: 'GET', url: V1, headers: { authorization: `Bearer ${TOKEN}`, accept: PB } });
    const items = (decodeProtobuf(list.rawPayload) as { items: { metadata: { name: string }; spec: Record<string, unknown> }[] }).items;
    expect(items.find((i) => i.metadata.name === 'wire')?.spec['targetCPUUtilizationPercentage']).toBe(35);
  });

  it('lists, patches and deletes in v1', async () => {
    const list = (await s.call('GET', V1)).body;
    expect(list.kind).toBe('HorizontalPodAutoscalerList');
    expect(list.apiVersion).toBe('autoscaling/v1');
    expect(list.items.length).toBeGreaterThanOrEqual(4);
    for (const item of list.items) {
      expect(item.apiVersion).toBe('autoscaling/v1');
      expect(item.spec.metrics).toBeUndefined();
      expect(typeof item.spec.targetCPUUtilizationPercentage).toBe('number');
    }
    const patched = await s.call('PATCH', `${V1}/cpu`, { spec: { targetCPUUtilizationPercentage: 40 } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.spec.targetCPUUtilizationPercentage).toBe(40);
    expect((await s.call('GET', `${V2}/cpu`)).body.spec.metrics[0].resource.target.averageUtilization).toBe(40);
    const deleted = await s.call('DELETE', `${V1}/cpu`);
    expect(deleted.status).toBe(200);
    expect((await s.call('GET', `${V2}/cpu`)).status).toBe(404);
  });

  it('refuses bad v1 objects with a 422 Status naming the field, storing nothing', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['low-target', { targetCPUUtilizationPercentage: 0 }, 'spec.metrics[0].resource.target.averageUtilization'],
      ['bounds', { minReplicas: 4, maxReplicas: 2 }, 'spec.maxReplicas'],
      ['no-max', { maxReplicas: undefined }, 'spec.maxReplicas'],
      ['text-target', { targetCPUUtilizationPercentage: 'lots' }, 'spec.targetCPUUtilizationPercentage'],
    ];
    for (const [name, spec, field] of cases) {
      const res = await s.call('POST', V1, v1Hpa(name, spec));
      expect(res.status, name).toBe(422);
      expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
      expect(res.body.details.causes.map((c: { field: string }) => c.field), name).toContain(field);
      expect((await s.call('GET', `${V1}/${name}`)).status).toBe(404);
    }
  });

  it('ignores round-trip annotations that do not parse (upstream drops them), never a 500', async () => {
    const res = await s.call('POST', V1, v1Hpa('garbled', { targetCPUUtilizationPercentage: 55 }, { 'autoscaling.alpha.kubernetes.io/metrics': '{not json', 'autoscaling.alpha.kubernetes.io/behavior': '[]', keep: 'me' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.metadata.annotations).toEqual({ keep: 'me' });
    const v2 = (await s.call('GET', `${V2}/garbled`)).body;
    expect(v2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 55 } } }]);
    expect(v2.spec.behavior).toBeUndefined();
  });

  it('a bad metric in the annotation is checked like a v2 metric: 422', async () => {
    const res = await s.call('POST', V1, v1Hpa('bad-annotation', {}, { 'autoscaling.alpha.kubernetes.io/metrics': JSON.stringify([{ type: 'Pods', pods: { metricName: 'qps' } }]) }));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
  });
});

describe('watching autoscaling/v1', () => {
  it('sends each version of an HPA as v1, whichever version wrote it', async () => {
    const w = await startTestServer('memory', { listen: true });
    try {
      const watch = await openWatch(`${w.url}${V1}?watch=1`, { token: TOKEN });
      if (!isStream(watch)) throw new Error('the watch was refused');
      try {
        expect((await w.call('POST', V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'seen' }, spec: { scaleTargetRef: target, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 45 } } }] } })).status).toBe(201);
        expect((await w.call('PATCH', `${V1}/seen`, { spec: { targetCPUUtilizationPercentage: 55 } }, { headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
        const events = await watch.next(2);
        expect(events.map((e) => [e.type, e.object.apiVersion, e.object.spec.targetCPUUtilizationPercentage, e.object.spec.metrics])).toEqual([
          ['ADDED', 'autoscaling/v1', 45, undefined],
          ['MODIFIED', 'autoscaling/v1', 55, undefined],
        ]);
      } finally {
        watch.abort();
      }
    } finally {
      await w.close();
    }
  });
});

describe('kubectl against autoscaling/v1', () => {
  const k = useKubectlServer('svc-hpa-v1-kubectl-', 'memory');

  it('applies and reads a v1 HPA, and kubectl autoscale makes one both versions show', async () => {
    const manifest = join(k.dir, 'hpa-v1.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: autoscaling/v1',
        'kind: HorizontalPodAutoscaler',
        'metadata: {name: from-v1, namespace: default}',
        'spec:',
        '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
        '  minReplicas: 2',
        '  maxReplicas: 6',
        '  targetCPUUtilizationPercentage: 65',
        '',
      ].join('\n'),
    );
    const applied = await kubectl(k.config, ['apply', '-f', manifest]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('horizontalpodautoscaler.autoscaling/from-v1 created');
    const v1 = await kubectl(k.config, ['get', 'horizontalpodautoscalers.v1.autoscaling', 'from-v1', '-n', 'default', '-o', 'jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage}']);
    expect(v1.code, v1.stderr).toBe(0);
    expect(v1.stdout).toBe('autoscaling/v1 65');
    const v2 = await kubectl(k.config, ['get', 'hpa', 'from-v1', '-n', 'default', '-o', 'jsonpath={.apiVersion} {.spec.metrics[0].resource.target.averageUtilization}']);
    expect(v2.stdout).toBe('autoscaling/v2 65');
    // Applying again with a change patches through v1.
    writeFileSync(manifest, (await import('node:fs')).readFileSync(manifest, 'utf8').replace('targetCPUUtilizationPercentage: 65', 'targetCPUUtilizationPercentage: 75'));
    const reapplied = await kubectl(k.config, ['apply', '-f', manifest]);
    expect(reapplied.code, reapplied.stderr).toBe(0);
    expect((await kubectl(k.config, ['get', 'hpa', 'from-v1', '-n', 'default', '-o', 'jsonpath={.spec.metrics[0].resource.target.averageUtilization}'])).stdout).toBe('75');

    const deployment = await kubectl(k.config, ['create', 'deployment', 'web', '--image=busybox', '-n', 'default']);
    expect(deployment.code, deployment.stderr).toBe(0);
    const autoscaled = await kubectl(k.config, ['autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=4', '--name=web-auto', '-n', 'default']);
    expect(autoscaled.code, autoscaled.stderr).toBe(0);
    const seen = await kubectl(k.config, ['get', 'horizontalpodautoscalers.v1.autoscaling', 'web-auto', '-n', 'default', '-o', 'jsonpath={.spec.targetCPUUtilizationPercentage} {.spec.maxReplicas}']);
    expect(seen.stdout).toBe('50 4');
    const bad = await kubectl(k.config, ['apply', '-f', '-'], 'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: broken, namespace: default}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 1, minReplicas: 3}\n');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('spec.maxReplicas');
  });
});
