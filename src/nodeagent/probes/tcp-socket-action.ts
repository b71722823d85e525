import net from 'node:net';
import type { Container } from '../../api/index.js';
import type { TcpSocketAction } from './actions.js';
import { hostPort, resolveHost, resolvePort } from './port.js';
import type { ActionOutcome } from './target.js';

/** Opens a TCP connection to the port and closes it: connected is success, refused or unreachable failure. */
export async function runTcpSocketAction(action: TcpSocketAction, container: Container, podIP: string | undefined, options: { signal?: AbortSignal | undefined } = {}): Promise<ActionOutcome> {
  const host = resolveHost(action.host, podIP);
  const port = resolvePort(action.port, container);
  const address = hostPort(host, port);
  return new Promise<ActionOutcome>((resolve) => {
    const socket = net.connect({ host, port, ...(options.signal ? { signal: options.signal } : {}) });
    socket.once('connect', () => {
      socket.destroy();
      resolve({ result: 'success', message: '' });
    });
    socket.once('error', (error) => {
      socket.destroy();
      resolve({ result: 'failure', message: `dial tcp ${address}: ${error.message}` });
    });
  });
}
