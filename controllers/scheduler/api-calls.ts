import { randomBytes } from 'node:crypto';
import { rfc3339, type CoreEvent, type Pod } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { TokenBucket, type TokenBucketOptions } from '../../operators/index.js';

/**
 * The scheduler's writes to the API server: bindings, the PodScheduled condition, Events. Each
 * waits for a token of one bucket (`--svc-api-qps`, `--svc-api-burst`), as client-go's rate
 * limiter makes every request of a kube-scheduler wait.
 */
export class SchedulerApi {
  readonly #bucket: TokenBucket | undefined;

  constructor(
    readonly client: Client,
    bucket: TokenBucketOptions | false,
    /** `source.component` and `reportingComponent` of the Events. */
    readonly component: string,
    /** `reportingInstance` of the Events (this scheduler's identity). */
    readonly instance: string,
  ) {
    this.#bucket = bucket === false ? undefined : new TokenBucket(bucket);
  }

  async #token(): Promise<void> {
    const wait = this.#bucket?.reserve(Date.now()) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** POST pods/<name>/binding: sets `spec.nodeName` once (409 if the pod is bound already, 404 if gone). */
  async bind(pod: Pod, nodeName: string): Promise<void> {
    await this.#token();
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
    await this.#token();
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

  /** A core/v1 Event about `pod` (`Scheduled`, `FailedScheduling`). */
  async event(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.#token();
    const { namespace, name, uid, resourceVersion } = pod.metadata;
    const at = rfc3339();
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name ?? 'pod'}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace, name, uid, resourceVersion },
      type,
      reason,
      message,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.instance,
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    };
    await this.client.create(builtin.coreEvents, event, { namespace });
  }
}
