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
});
