/** Helpers of the probe suites: real local servers, pods that point at them, a stepped clock. */
import http from 'node:http';
import net from 'node:net';
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import type { Container, Pod } from '../../../src/api/index.js';
import type { ProbeTarget } from '../../../src/nodeagent/index.js';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface TestHttpServer {
  readonly port: number;
  readonly requests: SeenRequest[];
  /** Requests received and not answered yet (hung ones, chiefly). */
  open(): number;
  /** How the next requests are answered; a handler that never ends the response hangs them. */
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 answering 200 "ok" until told otherwise. */
export async function startHttpServer(): Promise<TestHttpServer> {
  const requests: SeenRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const state: TestHttpServer = {
    port: 0,
    requests,
    open: () => [...hanging].filter((res) => !res.writableEnded).length,
    handle: (_req, res) => res.end('ok'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    hanging.add(res);
    res.once('close', () => hanging.delete(res));
    state.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (state as { port: number }).port = (server.address() as net.AddressInfo).port;
  return state;
}

/** A TCP port on 127.0.0.1 that accepts connections, counting them. */
export async function startTcpServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 nobody listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function podWith(container: Partial<Container> & { name?: string }, meta: { name?: string; uid?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: meta.name ?? 'web', namespace: 'default', uid: meta.uid ?? 'uid-web' },
    spec: { containers: [{ name: 'main', image: 'busybox', ...container }] },
  } as Pod;
}

export function targetOf(pod: Pod, containerId = 'c1', extra: Partial<ProbeTarget> = {}): ProbeTarget {
  const container = pod.spec.containers[0]!;
  return { pod, container, containerId, podIP: '127.0.0.1', ...extra };
}

/**
 * Virtual time that a test moves forward by hand: `advanceTo(ms)` runs every timer due by then and
 * leaves the clock there. Probe actions themselves stay real (sockets, processes).
 */
export class SteppedClock extends VirtualTimeScheduler {
  constructor() {
    super(VirtualAction, Infinity);
  }
  advanceTo(ms: number): void {
    this.maxFrames = ms;
    this.flush();
    this.frame = ms;
  }
}

export const settle = (ms = 60) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds (20 s guard). */
export async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await settle(10);
  }
}
