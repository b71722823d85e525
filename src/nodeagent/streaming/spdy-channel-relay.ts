/**
 * Relays a client's channel-protocol WebSocket to a SPDY session on the runtime's streaming
 * server (exec/attach, `v4.channel.k8s.io` streams `error`, `stdin`, `stdout`, `stderr`,
 * `resize`). Used when the client can close stdin (v5) and asked for stdin: SPDY carries that
 * close to the process as EOF, so `kubectl exec -i pod -- cat < file` ends.
 *
 * The Status is sent to the client last, after every output stream has ended, so nothing the
 * command printed arrives after its exit code.
 */
import type WebSocket from 'ws';
import { STREAM_CHANNEL, decodeChannelMessage, encodeChannelMessageBase64, isBase64Protocol, parseTerminalSize, type ChannelProtocol } from './channel-protocol.js';
import { RELAY_HIGH_WATER_BYTES } from './channel-relay.js';
import type { ConnectionLimits } from './connection-limits.js';
import { failureStatus } from './exec-status.js';
import type { SpdyConnection } from './spdy-connection.js';
import type { SpdyStream } from './spdy-stream.js';


export interface SpdyChannelRelayOptions {
  readonly client: WebSocket;
  readonly clientProtocol: ChannelProtocol;
  readonly session: SpdyConnection;
  readonly streams: { readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean; readonly tty: boolean };
  readonly limits: ConnectionLimits;
}

export function relayChannelsToSpdy(o: SpdyChannelRelayOptions): Promise<void> {
  const { client, session, limits } = o;
  const base64 = isBase64Protocol(o.clientProtocol);
  // The runtime waits for exactly the streams its request named; error goes first, as client-go does.
  const error = session.openStream({ streamType: 'error' });
  const stdin = o.streams.stdin ? session.openStream({ streamType: 'stdin' }) : undefined;
  const stdout = o.streams.stdout ? session.openStream({ streamType: 'stdout' }) : undefined;
  const stderr = o.streams.stderr ? session.openStream({ streamType: 'stderr' }) : undefined;
  const resize = o.streams.tty ? session.openStream({ streamType: 'resize' }) : undefined;
  // The runtime never writes on these; reading lets their end be seen.
  stdin?.resume();
  resize?.resume();

  const send = (channel: number, payload: Buffer, done?: () => void): void => {
    if (client.readyState !== client.OPEN) return;
    if (base64) client.send(encodeChannelMessageBase64(channel, payload), done);
    else client.send(Buffer.concat([Buffer.of(channel), payload]), { binary: true }, done);
  };

  return new Promise<void>((resolve) => {
    let finished = false;
    const statusChunks: Buffer[] = [];
    const finish = (fallbackError?: string): void => {
      if (finished) return;
      finished = true;
      limits.stop();
      const status = Buffer.concat(statusChunks);
      if (status.length > 0) send(STREAM_CHANNEL.error, status);
      else if (fallbackError) send(STREAM_CHANNEL.error, Buffer.from(JSON.stringify(failureStatus(new Error(fallbackError)))));
      if (client.readyState === client.OPEN) client.close(1000);
      session.close();
      setTimeout(() => {
        client.terminate();
        session.destroy();
      }, 5000).unref();
    };

    const outputs = [stdout, stderr, error].filter((s): s is SpdyStream => s !== undefined);
    let open = outputs.length;
    const ended = (): void => {
      if (--open === 0) finish('the runtime closed the stream without an exit status');
    };
    const pipeOut = (stream: SpdyStream, channel: number): void => {
      // Bytes the client's socket has not taken yet: past the high water mark the stream (and
      // through it the runtime's connection) waits.
      let inFlight = 0;
      stream.on('data', (chunk: Buffer) => {
        limits.touch();
        inFlight += chunk.length;
        if (inFlight >= RELAY_HIGH_WATER_BYTES) stream.pause();
        send(channel, chunk, () => {
          inFlight -= chunk.length;
          if (inFlight < RELAY_HIGH_WATER_BYTES / 4) stream.resume();
        });
      });
      stream.once('end', ended);
    };
    if (stdout) pipeOut(stdout, STREAM_CHANNEL.stdout);
    if (stderr) pipeOut(stderr, STREAM_CHANNEL.stderr);
    error.on('data', (chunk: Buffer) => statusChunks.push(chunk));
    error.once('end', ended);

    client.on('message', (data: Buffer, isBinary: boolean) => {
      limits.touch();
      const message = decodeChannelMessage(isBinary ? data : data.toString('utf8'), base64);
      if (!message) return;
      if (message.channel === STREAM_CHANNEL.stdin && stdin && !stdin.writableEnded) {
        if (!stdin.write(message.payload)) {
          client.pause();
          stdin.once('drain', () => client.resume());
        }
      } else if (message.channel === STREAM_CHANNEL.resize && resize && parseTerminalSize(message.payload)) {
        resize.write(message.payload);
      } else if (message.channel === STREAM_CHANNEL.close && message.payload[0] === STREAM_CHANNEL.stdin && stdin) {
        stdin.end();
      }
    });
    client.on('close', () => {
      finish();
      resolve();
    });
    client.on('error', () => finish());
    session.on('close', () => finish('the runtime streaming connection ended'));
  });
}
