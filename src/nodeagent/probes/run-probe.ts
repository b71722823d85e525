import { StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { parseProbeAction, type Probe } from './actions.js';
import { runExecAction } from './exec-action.js';
import { runGrpcAction } from './grpc-action.js';
import { runHttpGetAction } from './http-get-action.js';
import type { ActionOutcome, ProbeTarget } from './target.js';
import { runTcpSocketAction } from './tcp-socket-action.js';

export interface RunProbeOptions {
  readonly cri: CriClient;
  readonly timeoutSeconds: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs the probe's action once against the target. Resolves with success or failure; throws (a
 * StatusError) when the probe could not be run at all: a malformed action, a port name the
 * container lacks, no pod IP yet, the runtime unreachable.
 */
export async function runProbe(probe: Probe, target: ProbeTarget, options: RunProbeOptions): Promise<ActionOutcome> {
  const action = parseProbeAction(probe);
  const { signal } = options;
  if (action.exec) return runExecAction(action.exec, target.containerId, { cri: options.cri, timeoutSeconds: options.timeoutSeconds, signal });
  if (action.httpGet) return runHttpGetAction(action.httpGet, target.container, target.podIP, { signal });
  if (action.tcpSocket) return runTcpSocketAction(action.tcpSocket, target.container, target.podIP, { signal });
  if (action.grpc) return runGrpcAction(action.grpc, target.podIP, { timeoutSeconds: options.timeoutSeconds, signal });
  throw new StatusError({ reason: 'Invalid', message: 'probe names no handler' });
}
