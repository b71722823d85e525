// The manager's metrics registry: what --disabled-metrics and --allow-metric-labels change.
import { describe, expect, it } from 'vitest';
import { ManagerMetrics } from '../../../controllers/manager/index.js';

describe('manager metrics', () => {
  it('reports a controller queue under its name', async () => {
    const metrics = new ManagerMetrics();
    const queue = metrics.queue('namespace-controller');
    queue.add?.('a');
    queue.add?.('b');
    queue.depth?.(2);
    queue.retry?.('a');
    queue.queueDuration?.(3);
    queue.workDuration?.(250, 'retry');
    const { body, contentType } = await metrics.render();
    expect(contentType).toContain('text/plain');
    expect(body).toMatch(/^workqueue_adds_total\{name="namespace-controller"\} 2$/m);
    expect(body).toMatch(/^workqueue_depth\{name="namespace-controller"\} 2$/m);
    expect(body).toMatch(/^workqueue_retries_total\{name="namespace-controller"\} 1$/m);
    expect(body).toMatch(/^workqueue_queue_duration_seconds_bucket\{le="0\.001",name="namespace-controller"\} 0$/m);
    expect(body).toMatch(/^workqueue_queue_duration_seconds_bucket\{le="0\.005",name="namespace-controller"\} 1$/m);
    expect(body).toMatch(/^workqueue_queue_duration_seconds_sum\{name="namespace-controller"\} 0\.003$/m);
    expect(body).toMatch(/^workqueue_work_duration_seconds_sum\{name="namespace-controller",result="retry"\} 0\.25$/m);
  });

  it('leaves out --disabled-metrics, the process ones included', async () => {
    const metrics = new ManagerMetrics({ disabled: new Set(['workqueue_depth', 'process_cpu_seconds_total']) });
    metrics.queue('x').depth?.(1);
    const { body } = await metrics.render();
    expect(body).not.toContain('workqueue_depth');
    expect(body).not.toContain('process_cpu_seconds_total');
    expect(body).toContain('workqueue_adds_total');
  });

  it("reports label values outside --allow-metric-labels as 'unexpected'", async () => {
    const metrics = new ManagerMetrics({ allowLabels: new Map([['workqueue_adds_total,name', ['namespace-controller']]]) });
    metrics.queue('namespace-controller').add?.('k');
    metrics.queue('rogue-controller').add?.('k');
    metrics.queue('rogue-controller').depth?.(3);
    const { body } = await metrics.render();
    expect(body).toMatch(/^workqueue_adds_total\{name="namespace-controller"\} 1$/m);
    expect(body).toMatch(/^workqueue_adds_total\{name="unexpected"\} 1$/m);
    expect(body).toMatch(/^workqueue_depth\{name="rogue-controller"\} 3$/m); // no allow-list for this metric
  });

  it('observes event → reconcile start for starts with a trigger, and sent → start only for changes of --latency-annotation', async () => {
    const metrics = new ManagerMetrics({ latencyAnnotation: 'bench/sent' });
    expect(metrics.tracesReconcileStarts).toBe(true);
    const started = metrics.reconcileStart('replicaset-controller');
    const pod = (sent?: string) => ({ metadata: { name: 'p', namespace: 'ns', ...(sent === undefined ? {} : { annotations: { 'bench/sent': sent } }) } });
    const sent = performance.timeOrigin + performance.now() - 3; // written 3 ms ago by this clock
    // A changed stamp: both figures.
    started({ controller: 'replicaset-controller', key: 'ns/rs', trigger: { type: 'MODIFIED', old: pod('1'), object: pod(String(sent)) }, triggeredAt: 100, startedAt: 100.5 });
    // The same stamp as before (another change of the pod): event → start only.
    started({ controller: 'replicaset-controller', key: 'ns/rs', trigger: { type: 'MODIFIED', old: pod(String(sent)), object: pod(String(sent)) }, triggeredAt: 200, startedAt: 202 });
    // A watches key, and a requeue without a trigger: the first counts once, the second not at all.
    started({ controller: 'replicaset-controller', key: 'ns/rs', trigger: 'ns/rs', triggeredAt: 300, startedAt: 300 });
    started({ controller: 'replicaset-controller', key: 'ns/rs', startedAt: 400 });
    const { body } = await metrics.render();
    expect(body).toMatch(/^controller_event_to_reconcile_start_seconds_count\{name="replicaset-controller"\} 3$/m);
    expect(body).toMatch(/^controller_event_to_reconcile_start_seconds_bucket\{le="0\.0005",name="replicaset-controller"\} 2$/m);
    expect(body).toMatch(/^controller_event_to_reconcile_start_seconds_bucket\{le="0\.0025",name="replicaset-controller"\} 3$/m);
    expect(body).toMatch(/^controller_sent_to_reconcile_start_seconds_count\{name="replicaset-controller"\} 1$/m);
    expect(body).toMatch(/^controller_sent_to_reconcile_start_seconds_bucket\{le="0\.0025",name="replicaset-controller"\} 0$/m);
  });

  it('has no reconcile-start hook when both of its metrics are disabled, and no sent → start metric without an annotation', async () => {
    expect(new ManagerMetrics({ disabled: new Set(['controller_event_to_reconcile_start_seconds']) }).tracesReconcileStarts).toBe(false);
    const plain = new ManagerMetrics();
    expect(plain.tracesReconcileStarts).toBe(true);
    expect((await plain.render()).body).not.toContain('controller_sent_to_reconcile_start_seconds');
  });
});
