/**
 * The Kubernetes channel protocol over WebSocket, as exec, attach and port-forward speak it: every
 * message starts with one byte naming its channel. Binary subprotocols carry raw bytes after it;
 * the base64 ones send text messages whose first character is the channel digit and whose rest is
 * base64. `v5.channel.k8s.io` adds channel 255, "close": its second byte is the channel the peer
 * will not write again (the client's stdin EOF).
 */

export const STREAM_CHANNEL = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  /** exec/attach: the final `Status` (v4 and v5); port-forward: odd channels are errors instead. */
  error: 3,
  /** `{"Width":w,"Height":h}` for a tty. */
  resize: 4,
  /** v5 only: the second byte names the channel closed for writing. */
  close: 255,
} as const;

export type ChannelProtocol = 'v5.channel.k8s.io' | 'v4.channel.k8s.io' | 'v4.base64.channel.k8s.io' | 'base64.channel.k8s.io' | 'channel.k8s.io';

/** What the runtime's streaming server (containerd 1.6, kubelet streaming library) understands. */
export const RUNTIME_CHANNEL_PROTOCOL = 'v4.channel.k8s.io';

/** kubectl ≥ 1.30 tunnels port-forward's SPDY frames inside WebSocket binary messages under this name. */
export const SPDY_TUNNEL_PORT_FORWARD_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/** Ordered by preference: the first one the client also offers wins. */
const EXEC_PROTOCOLS: readonly ChannelProtocol[] = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io', 'base64.channel.k8s.io', 'channel.k8s.io'];
// Port-forward never had a v5: its channels are fixed pairs that end with the connection.
const PORT_FORWARD_CHANNEL_PROTOCOLS: readonly ChannelProtocol[] = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io', 'base64.channel.k8s.io', 'channel.k8s.io'];

export function isBase64Protocol(protocol: ChannelProtocol): boolean {
  return protocol.includes('base64');
}

export function supportsClose(protocol: ChannelProtocol): boolean {
  return protocol === 'v5.channel.k8s.io';
}

/**
 * Chooses the subprotocol for an exec or attach. A client that offers none is an old
 * `channel.k8s.io` client; one that offers only names svc does not speak gets `undefined`.
 */
export function negotiateExecProtocol(offered: readonly string[]): ChannelProtocol | undefined {
  if (offered.length === 0) return 'channel.k8s.io';
  return EXEC_PROTOCOLS.find((p) => offered.includes(p));
}

export type PortForwardProtocol = ChannelProtocol | typeof SPDY_TUNNEL_PORT_FORWARD_PROTOCOL;

export function negotiatePortForwardProtocol(offered: readonly string[]): PortForwardProtocol | undefined {
  if (offered.length === 0) return 'channel.k8s.io';
  if (offered.includes(SPDY_TUNNEL_PORT_FORWARD_PROTOCOL)) return SPDY_TUNNEL_PORT_FORWARD_PROTOCOL;
  return PORT_FORWARD_CHANNEL_PROTOCOLS.find((p) => offered.includes(p));
}

/** One channel message as bytes: the channel byte, then the payload. */
export function encodeChannelMessage(channel: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out;
}

/** The base64 variant's text message: the channel as a digit, then the payload in base64. */
export function encodeChannelMessageBase64(channel: number, payload: Uint8Array): string {
  return String.fromCharCode(48 + channel) + Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString('base64');
}

export interface ChannelMessage {
  readonly channel: number;
  readonly payload: Buffer;
}

/** Decodes a received message; `undefined` for an empty or malformed one (ignored, as the kubelet does). */
export function decodeChannelMessage(data: Buffer | string, base64: boolean): ChannelMessage | undefined {
  if (typeof data === 'string') {
    if (!base64 || data.length === 0) return undefined;
    const channel = data.charCodeAt(0) - 48;
    if (channel < 0 || channel > 9) return undefined;
    return { channel, payload: Buffer.from(data.slice(1), 'base64') };
  }
  if (data.length === 0) return undefined;
  if (base64) {
    // A base64 peer's binary message is a text message sent the wrong way; read it as text.
    return decodeChannelMessage(data.toString('latin1'), true);
  }
  return { channel: data[0] as number, payload: data.subarray(1) };
}

/** The resize message's body. */
export interface TerminalSize {
  readonly Width: number;
  readonly Height: number;
}

export function parseTerminalSize(payload: Buffer): TerminalSize | undefined {
  try {
    const value = JSON.parse(payload.toString('utf8')) as { Width?: unknown; Height?: unknown };
    const { Width, Height } = value;
    if (typeof Width !== 'number' || typeof Height !== 'number') return undefined;
    if (!Number.isInteger(Width) || !Number.isInteger(Height) || Width < 0 || Height < 0 || Width > 0xffff || Height > 0xffff) return undefined;
    return { Width, Height };
  } catch {
    return undefined;
  }
}
