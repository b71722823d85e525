/**
 * exec and attach over SPDY, for clients that do not speak WebSocket (client-go's SPDY executor,
 * kubectl with `KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false`, an API server that translates to
 * SPDY). The client opens one stream per `streamType` — `error`, and `stdin`, `stdout`, `stderr`,
 * `resize` as the request asked — and the agent opens the same streams, under the same protocol
 * version, on a SPDY session to the runtime, then pipes each pair: stdin and resize towards the
 * runtime, stdout, stderr and the Status on `error` back. FIN and resets pass through.
 */
import { RstStatus } from './spdy-frames.js';
import type { SpdyConnection } from './spdy-connection.js';
import type { SpdyStream } from './spdy-stream.js';

/** Versions svc relays over SPDY; containerd 1.6 serves these (not v5). Preferred first. */
export const SPDY_EXEC_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io'] as const;
export type SpdyExecProtocol = (typeof SPDY_EXEC_PROTOCOLS)[number];

export function negotiateSpdyExecProtocol(offered: readonly string[]): SpdyExecProtocol | undefined {
  return SPDY_EXEC_PROTOCOLS.find((p) => offered.includes(p));
}

const TOWARDS_RUNTIME = new Set(['stdin', 'resize']);

export interface SpdyExecOptions {
  readonly client: SpdyConnection;
  readonly runtime: SpdyConnection;
  readonly protocol: SpdyExecProtocol;
  readonly streams: { readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean; readonly tty: boolean };
  /** How long the client may take to open every stream it must (default 30 s). */
  readonly streamCreationTimeoutMs: number;
}

/** The stream types the request implies, as the kubelet expects them. */
export function expectedStreamTypes(o: Pick<SpdyExecOptions, 'protocol' | 'streams'>): Set<string> {
  const types = new Set(['error']);
  if (o.streams.stdin) types.add('stdin');
  if (o.streams.stdout) types.add('stdout');
  if (o.streams.stderr) types.add('stderr');
  if (o.streams.tty && o.protocol !== 'v2.channel.k8s.io') types.add('resize');
  return types;
}

export function serveSpdyExec(o: SpdyExecOptions): void {
  const expected = expectedStreamTypes(o);
  const received = new Map<string, SpdyStream>();
  const timer = setTimeout(() => {
    // The runtime would wait for them just as long: give up on both sides.
    o.client.close();
    o.runtime.close();
  }, o.streamCreationTimeoutMs);
  timer.unref();

  o.client.on('stream', (stream) => {
    const type = stream.header('streamtype') ?? '';
    if (!expected.has(type) || received.has(type)) {
      stream.reset(RstStatus.PROTOCOL_ERROR);
      return;
    }
    stream.reply();
    received.set(type, stream);
    if (received.size === expected.size) {
      clearTimeout(timer);
      connect();
    }
  });

  const connect = (): void => {
    let outputs = 0;
    // error first, as client-go opens them: the runtime reads the streams in any order anyway.
    for (const type of ['error', ...[...expected].filter((t) => t !== 'error')]) {
      const client = received.get(type) as SpdyStream;
      const runtime = o.runtime.openStream({ streamType: type });
      for (const stream of [client, runtime]) stream.on('error', () => undefined);
      if (TOWARDS_RUNTIME.has(type)) {
        client.pipe(runtime);
        runtime.resume();
      } else {
        outputs++;
        runtime.pipe(client);
        client.resume();
        runtime.once('end', () => {
          if (--outputs === 0) {
            o.client.close();
            o.runtime.close();
          }
        });
      }
      client.on('close', () => {
        if (client.resetStatus !== undefined && !runtime.destroyed) runtime.reset(RstStatus.CANCEL);
      });
      runtime.on('close', () => {
        if (runtime.resetStatus !== undefined && !client.destroyed) client.reset(RstStatus.CANCEL);
      });
    }
  };

  o.client.on('close', () => {
    clearTimeout(timer);
    o.runtime.close();
  });
  o.runtime.on('close', () => o.client.close());
}
