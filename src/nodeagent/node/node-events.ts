import type { SchedulerLike } from 'rxjs';
import { EventRecorder, type Client } from '../../client/index.js';
import { apiThrottle } from '../../../operators/index.js';

export interface NodeAgentEventsOptions {
  readonly client: Client;
  /** `--event-qps`; 0 uses 5. */
  readonly qps: number;
  /** `--event-burst`; 0 uses 10. */
  readonly burst: number;
  /** source.component and reportingComponent. Default `nodeagent`. */
  readonly component?: string;
  /** source.host and reportingInstance: the node's name. */
  readonly host: string;
  /** Events waiting for a token or a write; more are dropped. Default 100. */
  readonly bufferSize?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The node agent's Events: the shared recorder (src/client) limited by `--event-qps` /
 * `--event-burst` and written one at a time, at most `bufferSize` waiting, so a slow or
 * unreachable API server never makes the agent hold Events without bound.
 */
export function nodeAgentEvents(options: NodeAgentEventsOptions): EventRecorder {
  const scheduler = options.scheduler;
  return new EventRecorder({
    client: options.client,
    component: options.component ?? 'nodeagent',
    host: options.host,
    throttle: apiThrottle({ qps: options.qps === 0 ? 5 : options.qps, burst: options.burst === 0 ? 10 : options.burst, ...(scheduler ? { scheduler } : {}) }),
    bufferSize: options.bufferSize ?? 100,
    inFlight: 1,
    ...(scheduler ? { now: () => scheduler.now() } : {}),
  });
}
