import { rfc3339, type Pod } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { TokenBucket, type TokenBucketOptions } from '../../operators/index.js';

/**
 * The scheduler's writes to the API server: bindings and the PodScheduled condition. Each waits
 * for a token of one bucket (`--svc-api-qps`, `--svc-api-burst`), as client-go's rate limiter
 * makes every request of a kube-scheduler wait; its Events (the shared EventRecorder) take tokens
 * of the same bucket.
 */
export class SchedulerApi {
  readonly #bucket: TokenBucket | undefined;

  constructor(
    readonly client: Client,
    bucket: TokenBucketOptions | false,
  ) {
    this.#bucket = bucket === false ? undefined : new TokenBucket(bucket);
  }

  /** Waits for a token of the bucket (the Events the scheduler records take them too). */
  async token(): Promise<void> {
    const wait = this.#bucket?.reserve(Date.now()) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** POST pods/<name>/binding: sets `spec.nodeName` once (409 if the pod is bound already, 404 if gone). */
  async bind(pod: Pod, nodeName: string): Promise<void> {
    await this.token();
    const { namespace, name, uid } = pod.metadata;
    await this.client.bind(name!, nodeName, { namespace, uid });
  }

  /**
   * Sets the pod's PodScheduled condition to False with `reason` and `message` through
   * pods/<name>/status (a strategic merge patch: the other conditions stay). Skipped when the pod
   * already says exactly that, so a pod retried a hundred times is written once.
   */
  async markUnschedulable(pod: Pod, reason: string, message: string): Promise<boolean> {
    const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (current?.status === 'False' && current.reason === reason && current.message === message) return false;
    await this.token();
    const { namespace, name } = pod.metadata;
    const lastTransitionTime = current?.status === 'False' && current['lastTransitionTime'] ? current['lastTransitionTime'] : rfc3339();
    await this.client.patchStatus(
      builtin.pods,
      name!,
      { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason, message, lastProbeTime: null, lastTransitionTime }] } },
      { namespace, type: 'strategic' },
    );
    return true;
  }
}
