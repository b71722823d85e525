import type WebSocket from 'ws';

/**
 * The Kubernetes channel protocol as a client speaks it over WebSocket (exec, attach,
 * port-forward): every binary message begins with one byte naming its channel. The server side
 * is the node agent's (src/nodeagent/streaming/channel-protocol.ts); the client offers only the
 * binary subprotocols (base64 ones exist for browsers that cannot send binary).
 */
export const CHANNEL = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  /** exec/attach: the final Status. */
  error: 3,
  /** `{"Width":w,"Height":h}` for a tty. */
  resize: 4,
  /** v5 only: the second byte names the channel the client will not write again (stdin's end). */
  close: 255,
} as const;

/** exec and attach: v5 first (it can close stdin), v4 as the fallback. */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
/** port-forward has no v5: its channels are data/error pairs that end with the connection. */
export const PORT_FORWARD_PROTOCOLS = ['v4.channel.k8s.io'] as const;

/** One message: the channel byte, then the payload. */
export function channelMessage(channel: number, payload: Uint8Array = new Uint8Array(0)): Buffer {
  const out = Buffer.allocUnsafe(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out;
}

/** A received message as one Buffer (ws hands a fragmented one as a list). */
export function messageBytes(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** ws sends a frame and calls back once it is written: as a promise. */
export function sendMessage(socket: WebSocket, message: Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.send(message, { binary: true }, (error) => (error ? reject(error) : resolve())));
}
