import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Status } from '../../api/index.js';
import { watchFrames, type RenderOptions } from '../../encoding/index.js';
import { INITIAL_EVENTS_END_ANNOTATION, type ResourceType } from '../../api/index.js';
import { apiVersionOf } from '../api-object.js';
import { isBearerProtocol } from '../authn/websocket-bearer.js';
import type { Frame } from './frames.js';

/**
 * The WebSocket subprotocols a watch speaks, svc's names first. `binary.*`: every event is one
 * binary message. `base64.binary.*`: one text message holding the event's bytes in base64 (for
 * clients that only handle text). No protocol: one message per event, text for JSON and binary
 * for protobuf and CBOR, as kube-apiserver frames a watch over WebSocket.
 */
export const WATCH_PROTOCOLS = ['binary.svc.io', 'base64.binary.svc.io', 'binary.k8s.io', 'base64.binary.k8s.io'] as const;
export type WatchProtocol = (typeof WATCH_PROTOCOLS)[number];

/** How many bytes of messages may wait in one watcher's socket before it counts as full. */
const HIGH_WATER_BYTES = 64 * 1024;

/** Whether a request asks to upgrade to a WebSocket. */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return req.headers.upgrade?.toLowerCase() === 'websocket';
}

/** The first protocol the client offers that a watch speaks (bearer-token protocols are never chosen). */
export function chooseWatchProtocol(offered: Iterable<string>): WatchProtocol | undefined {
  for (const protocol of offered) {
    if (isBearerProtocol(protocol)) continue;
    if ((WATCH_PROTOCOLS as readonly string[]).includes(protocol)) return protocol as WatchProtocol;
  }
  return undefined;
}

let server: Promise<WebSocketServer> | undefined;
/** One WebSocket server for every watch, made by the first (ws is loaded only when a watch needs it). */
const webSocketServer = (): Promise<WebSocketServer> =>
  (server ??= import('ws').then(
    ({ WebSocketServer }) =>
      new WebSocketServer({
        noServer: true,
        clientTracking: false,
        perMessageDeflate: false,
        // A watch client sends nothing but close and ping frames.
        maxPayload: 4 * 1024,
        handleProtocols: (offered) => chooseWatchProtocol(offered) ?? false,
      }),
  ));

/** Completes the WebSocket handshake of a watch on the connection the request came with. */
export async function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket> {
  const wss = await webSocketServer();
  return new Promise<WebSocket>((resolve, reject) => {
    if (socket.destroyed) return reject(new Error('the client went away before the upgrade'));
    // ws answers a malformed handshake itself (400) and never calls back.
    const onClose = (): void => reject(new Error('the WebSocket handshake failed or the client went away'));
    socket.once('close', onClose);
    wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('close', onClose);
      resolve(ws);
    });
  });
}

/** One watch's messages over a WebSocket: the sink a bounded watch writes to. */
export interface WebSocketWatchOutput {
  write(frame: Frame): boolean;
  onDrain(listener: () => void): () => void;
  /** Sends the ERROR event (when given) and closes the connection. */
  end(status?: Status, code?: number, reason?: string): void;
}

// Whole JSON frames by version, shared by every WebSocket watcher of the process: a message must be
// one buffer, so the head, the version's bytes and the tail are joined once per version and type.
const JOINED = { ADDED: new WeakMap<Uint8Array, Buffer>(), MODIFIED: new WeakMap<Uint8Array, Buffer>(), DELETED: new WeakMap<Uint8Array, Buffer>() };
const HEADS = { ADDED: Buffer.from('{"type":"ADDED","object":'), MODIFIED: Buffer.from('{"type":"MODIFIED","object":'), DELETED: Buffer.from('{"type":"DELETED","object":') };
const TAIL = Buffer.from('}\n');

/**
 * A watch's output over `ws`: one message per frame, in the representation `render` names (plain
 * JSON when undefined), framed by `protocol`. Back-pressure is what the socket reports: a write
 * that leaves more than HIGH_WATER_BYTES unsent says "full", and `onDrain` fires once the sends
 * in flight have been handed to the kernel.
 */
export function webSocketWatchOutput(ws: WebSocket, type: ResourceType, protocol: WatchProtocol | undefined, render: RenderOptions | undefined): WebSocketWatchOutput {
  const frames = render ? watchFrames(render) : undefined;
  const binaryCodec = render !== undefined && render.rep.codec !== 'json';
  const envelope = `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(apiVersionOf(type))}`;
  let unsent = 0;
  let drainListeners: (() => void)[] = [];
  const sent = (bytes: number) => (): void => {
    unsent -= bytes;
    if (unsent <= HIGH_WATER_BYTES / 2 && drainListeners.length > 0) {
      const listeners = drainListeners;
      drainListeners = [];
      for (const listener of listeners) listener();
    }
  };
  const send = (bytes: Uint8Array): boolean => {
    if (ws.readyState !== ws.OPEN) return false;
    if (protocol?.startsWith('base64.')) {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
      unsent += text.length;
      ws.send(text, { binary: false }, sent(text.length));
    } else {
      unsent += bytes.byteLength;
      ws.send(bytes, { binary: protocol !== undefined || binaryCodec }, sent(bytes.byteLength));
    }
    return unsent < HIGH_WATER_BYTES;
  };
  const bookmark = (frame: Extract<Frame, { type: 'BOOKMARK' }>): Uint8Array => {
    const annotations = frame.initialEventsEnd ? { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } : undefined;
    if (frames) return frames.bookmark(frame.revision, annotations);
    const extra = annotations ? `,"annotations":${JSON.stringify(annotations)}` : '';
    return Buffer.from(`{"type":"BOOKMARK","object":{${envelope},"metadata":{"resourceVersion":"${frame.revision}"${extra}}}}\n`);
  };
  return {
    write(frame) {
      if (frame.type === 'BOOKMARK') return send(bookmark(frame));
      const json = frame.object.object.json;
      if (frames) return send(frames.event(frame.type, json));
      let joined = JOINED[frame.type].get(json);
      if (!joined) JOINED[frame.type].set(json, (joined = Buffer.concat([HEADS[frame.type], json, TAIL])));
      return send(joined);
    },
    onDrain(listener) {
      drainListeners.push(listener);
      return () => {
        drainListeners = drainListeners.filter((l) => l !== listener);
      };
    },
    end(status, code = 1000, reason = '') {
      if (status && ws.readyState === ws.OPEN) {
        const object = status as unknown as Record<string, unknown>;
        send(frames ? frames.error(object) : Buffer.from(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`));
      }
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    },
  };
}
