// /metrics/resource: the Summary's figures in the kubelet's Prometheus series (names, labels,
// units, timestamps), and nothing made up for what the Summary lacks.
import { describe, expect, it } from 'vitest';
import { resourceMetricsText } from '../../../src/nodeagent/server/resource-metrics-text.js';

const T = '2026-01-01T00:00:10.000Z';
const ms = Date.parse(T);

describe('resourceMetricsText', () => {
  it('writes node, pod and container series with upstream names, labels and units', () => {
    const text = resourceMetricsText({
      node: { nodeName: 'n', cpu: { time: T, usageCoreNanoSeconds: 2.5e9 }, memory: { time: T, workingSetBytes: 4096 } },
      pods: [
        {
          podRef: { name: 'web', namespace: 'default', uid: 'u' },
          cpu: { time: T, usageCoreNanoSeconds: 5e8 },
          memory: { time: T, workingSetBytes: 2048 },
          containers: [{ name: 'c"1', startTime: T, cpu: { time: T, usageCoreNanoSeconds: 5e8 }, memory: { time: T, workingSetBytes: 2048 } }],
        },
      ],
    });
    const lines = text.split('\n');
    expect(lines).toContain(`node_cpu_usage_seconds_total 2.5 ${ms}`);
    expect(lines).toContain(`node_memory_working_set_bytes 4096 ${ms}`);
    expect(lines).toContain(`pod_cpu_usage_seconds_total{namespace="default",pod="web"} 0.5 ${ms}`);
    expect(lines).toContain(`container_cpu_usage_seconds_total{container="c\\"1",namespace="default",pod="web"} 0.5 ${ms}`);
    expect(lines).toContain(`container_memory_working_set_bytes{container="c\\"1",namespace="default",pod="web"} 2048 ${ms}`);
    expect(lines).toContain(`container_start_time_seconds{container="c\\"1",namespace="default",pod="web"} ${ms / 1000}`);
    expect(lines).toContain('# TYPE container_cpu_usage_seconds_total counter');
    expect(lines).toContain('scrape_error 0');
  });

  it('leaves out series without a figure', () => {
    const text = resourceMetricsText({ node: { nodeName: 'n', cpu: {}, memory: {} }, pods: [{ podRef: { name: 'p', namespace: 'x' }, containers: [{ name: 'c' }] }] });
    expect(text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))).toEqual(['scrape_error 0']);
  });
});
