import type { Container, Pod } from '../../api/index.js';

/** The container a probe or a lifecycle hook acts on. */
export interface ProbeTarget {
  readonly pod: Pod;
  readonly container: Container;
  /** The runtime's container ID: exec actions run in it, and results name it. */
  readonly containerId: string;
  /** Default host of httpGet, tcpSocket and grpc actions. */
  readonly podIP: string | undefined;
  /**
   * When the container started, in ms on the manager's clock (`Date.now()` unless a scheduler
   * is injected). initialDelaySeconds counts from here, so a probe of a container the agent
   * adopts after a restart is not delayed again. Default: when `start()` is called.
   */
  readonly startedAtMs?: number;
}

/** What one run of an action found. A run that could not be made at all throws instead. */
export interface ActionOutcome {
  readonly result: 'success' | 'failure';
  /** The command's output, the HTTP status, the connection error: what an event should say. */
  readonly message: string;
}

/** `namespace/name` for messages, as the kubelet writes pods in its events and logs. */
export function podName(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}
