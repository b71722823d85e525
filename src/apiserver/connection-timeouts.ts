/**
 * How long a client may take to send a request: its head, then the whole of it. Without these a
 * client that sends half a head or half a body holds its connection (and its buffers) for ever:
 * Fastify turns Node's request timeout off, and Node checks its header timeout only every 30 s.
 */
export interface ConnectionTimeouts {
  /** From a connection's opening (or a kept-alive one's next request's first byte) to the end of the request head (kube-apiserver's ReadHeaderTimeout is 32 s). */
  readonly headerMs: number;
  /** From the start of a request to the last byte of its body. */
  readonly bodyMs: number;
}

export const DEFAULT_CONNECTION_TIMEOUTS: ConnectionTimeouts = { headerMs: 32_000, bodyMs: 60_000 };

/**
 * Node's server options for the timeouts. A request is complete once its body has arrived, so a
 * watch or a log stream, whose request has no body, is never cut by them however long its answer
 * runs; an upgrade (exec, attach, port-forward) leaves the HTTP server with its head.
 */
export function serverTimeoutOptions({ headerMs, bodyMs }: ConnectionTimeouts) {
  return {
    headersTimeout: headerMs,
    requestTimeout: Math.max(headerMs, bodyMs),
    // Node looks for expired requests this often (30 s by default, which would let a timeout run
    // up to 30 s late).
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headerMs / 2))),
  };
}
