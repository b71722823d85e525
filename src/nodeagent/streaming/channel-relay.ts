/**
 * Relays a client's channel-protocol WebSocket and the runtime's `v4.channel.k8s.io` one, both
 * ways, until either ends. Binary messages pass through untouched (channels 0–4 mean the same in
 * v4 and v5, and port-forward's data/error pairs are numbered alike on both sides), so a frame is
 * never copied; base64 clients are converted at the edge.
 *
 * Not relayed: v5's close of stdin (channel 255): a v4 WebSocket has no way to say it to the
 * runtime, so a command reading stdin to its end waits until the client closes the connection.
 */
import type WebSocket from 'ws';
import { STREAM_CHANNEL, decodeChannelMessage, encodeChannelMessageBase64, isBase64Protocol, parseTerminalSize, type ChannelProtocol } from './channel-protocol.js';
import type { ConnectionLimits } from './connection-limits.js';
import { failureStatus } from './exec-status.js';

/** Bytes handed to one side's socket and not yet written before the relay stops reading the other. */
export const RELAY_HIGH_WATER_BYTES = 1024 * 1024;
const RELAY_LOW_WATER_BYTES = RELAY_HIGH_WATER_BYTES / 4;

export interface ChannelRelayOptions {
  readonly client: WebSocket;
  readonly clientProtocol: ChannelProtocol;
  readonly runtime: WebSocket;
  readonly limits: ConnectionLimits;
  /** Channels the client may write: stdin (0), resize (4) for exec/attach; even ones for port-forward. */
  readonly acceptFromClient: (channel: number) => boolean;
  /**
   * exec/attach: channel 3 is the Status (one is made up if the runtime ends without one) and
   * channel 4 resize (malformed bodies dropped). Port-forward's channels are data/error pairs.
   */
  readonly exec: boolean;
}

/** Resolves when both sides are closed. */
export function relayChannels(o: ChannelRelayOptions): Promise<void> {
  const { client, runtime, limits } = o;
  const base64 = isBase64Protocol(o.clientProtocol);
  let sawStatus = false;
  let toClient = 0;
  let toRuntime = 0;

  return new Promise<void>((resolve) => {
    let closing = false;
    const finish = (): void => {
      limits.stop();
      if (client.readyState === client.CLOSED && runtime.readyState === runtime.CLOSED) resolve();
    };
    client.on('close', finish);
    runtime.on('close', finish);

    const closeBoth = (code: number, reason: string): void => {
      if (closing) return;
      closing = true;
      limits.stop();
      if (runtime.readyState === runtime.OPEN || runtime.readyState === runtime.CONNECTING) runtime.close(1000);
      if (client.readyState === client.OPEN) client.close(code, reason);
      // A peer that never answers the close handshake is cut off rather than held forever.
      setTimeout(() => {
        client.terminate();
        runtime.terminate();
      }, 5000).unref();
    };

    runtime.on('message', (data: Buffer, isBinary: boolean) => {
      limits.touch();
      if (!isBinary || data.length === 0) return;
      if (data[0] === STREAM_CHANNEL.error && o.exec) sawStatus = true;
      if (client.readyState !== client.OPEN) return;
      const size = data.length;
      toClient += size;
      if (toClient >= RELAY_HIGH_WATER_BYTES) runtime.pause();
      const sent = (): void => {
        toClient -= size;
        if (toClient < RELAY_LOW_WATER_BYTES && !closing) runtime.resume();
      };
      if (base64) client.send(encodeChannelMessageBase64(data[0] as number, data.subarray(1)), sent);
      else client.send(data, { binary: true }, sent);
    });

    client.on('message', (data: Buffer, isBinary: boolean) => {
      limits.touch();
      const message = decodeChannelMessage(isBinary ? data : data.toString('utf8'), base64);
      if (!message || !o.acceptFromClient(message.channel)) return;
      if (message.channel === STREAM_CHANNEL.resize && o.exec && !parseTerminalSize(message.payload)) return;
      if (runtime.readyState !== runtime.OPEN) return;
      const size = data.length;
      toRuntime += size;
      if (toRuntime >= RELAY_HIGH_WATER_BYTES) client.pause();
      const sent = (): void => {
        toRuntime -= size;
        if (toRuntime < RELAY_LOW_WATER_BYTES && !closing) client.resume();
      };
      if (!base64 && isBinary) runtime.send(data, { binary: true }, sent);
      else runtime.send(Buffer.concat([Buffer.of(message.channel), message.payload]), { binary: true }, sent);
    });

    runtime.on('close', () => {
      if (o.exec && !sawStatus && !closing && client.readyState === client.OPEN) {
        const status = Buffer.from(JSON.stringify(failureStatus(new Error('the runtime closed the stream without an exit status'))));
        if (base64) client.send(encodeChannelMessageBase64(STREAM_CHANNEL.error, status));
        else client.send(Buffer.concat([Buffer.of(STREAM_CHANNEL.error), status]), { binary: true });
      }
      closeBoth(1000, '');
    });
    client.on('close', () => closeBoth(1000, ''));
    runtime.on('error', () => closeBoth(1011, 'runtime stream failed'));
    client.on('error', () => closeBoth(1011, ''));
    runtime.resume();
  });
}
