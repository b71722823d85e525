/** exec, attach and port-forward: the channel protocols, SPDY/3.1, and the bridges to the runtime. */
export {
  STREAM_CHANNEL,
  PORT_FORWARD_PROTOCOL,
  RUNTIME_CHANNEL_PROTOCOL,
  SPDY_TUNNEL_PORT_FORWARD_PROTOCOL,
  decodeChannelMessage,
  encodeChannelMessageBase64,
  encodeChannelMessage,
  isBase64Protocol,
  negotiateExecProtocol,
  negotiatePortForwardProtocol,
  parseTerminalSize,
  supportsClose,
  type ChannelMessage,
  type ChannelProtocol,
  type PortForwardProtocol,
  type TerminalSize,
} from './channel-protocol.js';
export { exitCodeOf, exitCodeStatus, failureStatus, successStatus, type StreamStatus } from './exec-status.js';
export { SPDY_HEADER_DICTIONARY } from './spdy-dictionary.js';
/** SPDY/3.1 frames, one namespace so their generic names (`FrameType`, `encodeData`) stay out of the agent's surface. */
export * as spdyFrames from './spdy-frames.js';
export { HeaderCompressor, HeaderDecompressor, decodeHeaderBlock, encodeHeaderBlock, type SpdyHeaders } from './spdy-headers.js';
export { SpdyConnection, type SpdyConnectionEvents, type SpdyConnectionOptions } from './spdy-connection.js';
export { SpdyStream, type HeaderValues, type StreamSession } from './spdy-stream.js';
export { MAX_STREAMING_CONNECTION_MS, connectionLimits, type ConnectionLimitOptions, type ConnectionLimits } from './connection-limits.js';
export { resolveContainer, resolveSandbox } from './pod-resolver.js';
export { isStreamingPath, parsePorts, parseStreamRequest, type PodRef, type StreamRequest } from './stream-request.js';
export { openRuntimeChannel, webSocketUrl } from './runtime-channel.js';
export { relayChannels, type ChannelRelayOptions } from './channel-relay.js';
export { servePortForwardSession, type SpdyPortForwardOptions } from './spdy-port-forward.js';
export { streamingRequestHandler, streamingUpgradeHandler, type StreamingOptions, type UpgradeHandler } from './upgrade-handler.js';
export { SPDY_EXEC_PROTOCOLS, expectedStreamTypes, negotiateSpdyExecProtocol, serveSpdyExec, type SpdyExecOptions, type SpdyExecProtocol } from './spdy-exec.js';
export { streamingRoutes } from './streaming-routes.js';
