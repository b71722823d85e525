/**
 * Port-forward over a SPDY session (kubectl's protocol, plain or tunneled in a WebSocket): the
 * client opens, per forwarded connection, an `error` stream and a `data` stream carrying headers
 * `streamType`, `port` and `requestID`. Once both of a request ID are open, the agent opens the
 * same pair on a SPDY session to the runtime's streaming server (one per port, from CRI
 * PortForward for the pod's sandbox) and pipes them: data both ways with its FIN — a client that
 * half-closes is seen by the pod as EOF — and the runtime's error text back on the error stream.
 * A reset on either side resets the other.
 */
import { StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { PORT_FORWARD_PROTOCOL } from './channel-protocol.js';
import { RstStatus } from './spdy-frames.js';
import type { SpdyConnection } from './spdy-connection.js';
import type { SpdyStream } from './spdy-stream.js';
import { openRuntimeSpdy } from './runtime-spdy.js';
import { parsePorts } from './stream-request.js';

export interface SpdyPortForwardOptions {
  readonly session: SpdyConnection;
  readonly cri: CriClient;
  readonly podSandboxId: string;
  /** How long the second stream of a pair may lag the first (the kubelet's 30 s by default). */
  readonly streamCreationTimeoutMs: number;
}

interface Pair {
  data?: SpdyStream;
  error?: SpdyStream;
  timer: NodeJS.Timeout;
}


export function servePortForwardSession(o: SpdyPortForwardOptions): void {
  const pairs = new Map<string, Pair>();
  const runtimes = new Map<number, Promise<SpdyConnection>>();
  const runtimeFor = (port: number): Promise<SpdyConnection> => {
    let session = runtimes.get(port);
    if (!session) {
      session = o.cri.portForward({ podSandboxId: o.podSandboxId, port: [port] }).then(({ url }) => openRuntimeSpdy(url, PORT_FORWARD_PROTOCOL));
      runtimes.set(port, session);
      session.then(
        (s) => s.on('close', () => runtimes.delete(port)),
        () => runtimes.delete(port),
      );
    }
    return session;
  };
  o.session.on('stream', (stream) => {
    const type = stream.header('streamtype');
    const requestId = stream.header('requestid') ?? '';
    if (type !== 'data' && type !== 'error') {
      stream.reset(RstStatus.PROTOCOL_ERROR);
      return;
    }
    stream.reply();
    let pair = pairs.get(requestId);
    if (!pair) {
      const timer = setTimeout(() => {
        pairs.delete(requestId);
        pair?.data?.reset(RstStatus.CANCEL);
        pair?.error?.reset(RstStatus.CANCEL);
      }, o.streamCreationTimeoutMs);
      timer.unref();
      pair = { timer };
      pairs.set(requestId, pair);
    }
    if (pair[type]) {
      // A second stream of one type for one request: the kubelet refuses it too.
      stream.reset(RstStatus.PROTOCOL_ERROR);
      return;
    }
    pair[type] = stream;
    if (pair.data && pair.error) {
      clearTimeout(pair.timer);
      pairs.delete(requestId);
      void forward(pair.data, pair.error, requestId, runtimeFor);
    }
  });
  o.session.on('close', () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    pairs.clear();
    for (const session of runtimes.values()) session.then((s) => s.close(), () => undefined);
    runtimes.clear();
  });
}

function portOf(data: SpdyStream): number {
  const ports = parsePorts([data.header('port') ?? '']);
  if (ports.length !== 1) throw new StatusError({ reason: 'BadRequest', message: `invalid port header "${data.header('port') ?? ''}"` });
  return ports[0] as number;
}

async function forward(data: SpdyStream, error: SpdyStream, requestId: string, runtimeFor: (port: number) => Promise<SpdyConnection>): Promise<void> {
  // The client never writes on the error stream; reading lets its FIN be seen.
  error.resume();
  let port = 0;
  let runtimeData: SpdyStream;
  let runtimeError: SpdyStream;
  try {
    port = portOf(data);
    const runtime = await runtimeFor(port);
    const headers = { port: String(port), requestID: requestId };
    runtimeError = runtime.openStream({ ...headers, streamType: 'error' });
    runtimeData = runtime.openStream({ ...headers, streamType: 'data' });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    error.end(`error forwarding port ${port}: ${message}`);
    data.end();
    data.resume();
    return;
  }
  runtimeError.end();
  data.pipe(runtimeData);
  runtimeData.pipe(data);
  runtimeError.pipe(error);
  const resetBoth = (streams: SpdyStream[]) => (): void => {
    for (const stream of streams) if (!stream.destroyed) stream.reset(RstStatus.CANCEL);
  };
  const clientGone = resetBoth([runtimeData, runtimeError]);
  const runtimeGone = resetBoth([data, error]);
  data.on('close', () => {
    if (data.resetStatus !== undefined) clientGone();
  });
  error.on('close', () => {
    if (error.resetStatus !== undefined) clientGone();
  });
  runtimeData.on('close', () => {
    if (runtimeData.resetStatus !== undefined) runtimeGone();
  });
  for (const stream of [data, error, runtimeData, runtimeError]) stream.on('error', () => undefined);
}
