/**
 * Port-forward over a SPDY session (kubectl's protocol, plain or tunneled in a WebSocket): the
 * client opens, per forwarded connection, an `error` stream and a `data` stream carrying headers
 * `streamType`, `port` and `requestID`. Once both of a request ID are open, the agent asks CRI
 * PortForward for that port of the pod's sandbox, dials the runtime's URL (WebSocket, channel 0
 * data and 1 error, each beginning with the port as two little-endian bytes) and relays:
 * runtime data → the data stream, client data → the runtime, a runtime error → the error stream
 * as text. The pair ends when either side closes (FIN or RST from the client; the runtime
 * closing when the pod's end of the TCP connection does).
 */
import type WebSocket from 'ws';
import { StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { RstStatus } from './spdy-frames.js';
import type { SpdyConnection, SpdyStream } from './spdy-connection.js';
import { openRuntimeChannel } from './runtime-channel.js';
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

const STREAM_TYPE = 'streamtype';

export function servePortForwardSession(o: SpdyPortForwardOptions): void {
  const pairs = new Map<string, Pair>();
  o.session.on('stream', (stream) => {
    const type = stream.header(STREAM_TYPE);
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
      void forward(o, pair.data, pair.error);
    }
  });
  o.session.on('close', () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    pairs.clear();
  });
}

function portOf(data: SpdyStream): number {
  const ports = parsePorts([data.header('port') ?? '']);
  if (ports.length !== 1) throw new StatusError({ reason: 'BadRequest', message: `invalid port header "${data.header('port') ?? ''}"` });
  return ports[0] as number;
}

async function forward(o: SpdyPortForwardOptions, data: SpdyStream, error: SpdyStream): Promise<void> {
  // The client never writes on the error stream; drain it so its FIN is seen.
  error.resume();
  let port = 0;
  let runtime: WebSocket;
  try {
    port = portOf(data);
    const { url } = await o.cri.portForward({ podSandboxId: o.podSandboxId, port: [port] });
    runtime = await openRuntimeChannel(url);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    error.end(`error forwarding port ${port} to pod sandbox ${o.podSandboxId}: ${message}`);
    data.end();
    return;
  }
  relay(data, error, runtime);
}

/** Skips the two-byte port prefix of the first message on each runtime channel. */
function relay(data: SpdyStream, error: SpdyStream, runtime: WebSocket): void {
  const prefixPending = [true, true];
  let errorText = '';
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    if (errorText && !error.writableEnded && !error.destroyed) error.write(errorText);
    if (!error.writableEnded && !error.destroyed) error.end();
    if (!data.writableEnded && !data.destroyed) data.end();
    if (runtime.readyState === runtime.OPEN) runtime.close(1000);
  };
  runtime.on('message', (message: Buffer, isBinary: boolean) => {
    if (!isBinary || message.length === 0) return;
    const channel = message[0] as number;
    if (channel > 1) return;
    let payload = message.subarray(1);
    if (prefixPending[channel]) {
      prefixPending[channel] = false;
      payload = payload.subarray(2);
    }
    if (payload.length === 0) return;
    if (channel === 1) {
      errorText += payload.toString('utf8');
      return;
    }
    if (!data.writableEnded && !data.destroyed && !data.write(payload)) {
      runtime.pause();
      data.once('drain', () => runtime.resume());
    }
  });
  let inFlight = 0;
  data.on('data', (chunk: Buffer) => {
    if (runtime.readyState !== runtime.OPEN) return;
    // Sends the runtime's socket has not taken yet bound what the relay holds.
    if (++inFlight >= 64) data.pause();
    runtime.send(Buffer.concat([Buffer.of(0), chunk]), { binary: true }, () => {
      if (--inFlight < 32) data.resume();
    });
  });
  // The client's FIN on data: a v4 WebSocket cannot half-close, so the runtime connection stays
  // until the pod's side closes or the client resets the streams (kubectl does both in turn).
  data.on('close', finish);
  error.on('close', () => {
    if (error.resetStatus !== undefined) finish();
  });
  runtime.on('close', finish);
  runtime.on('error', finish);
  runtime.resume();
}
