import type { Server as TlsServer, TLSSocket } from 'node:tls';

/**
 * Has a TLS server's HTTP connections read requests through the socket's stream, so that a
 * connection Node pauses holds the bytes that arrive meanwhile instead of being closed.
 *
 * Why: Node's HTTP server pauses a connection when a request's head arrives while the previous
 * answer on it has not drained (`parserOnIncoming`: the socket's `needDrain`, or the answers
 * queued on it past its `writableHighWaterMark`, 16 KiB on Node 20, 64 KiB on 22 and later). It
 * stops the socket's reads and, after the current chunk, pauses the HTTP parser. By default the
 * parser reads the socket's handle itself (`parser.consume`), and on a TLS socket stopping reads
 * stops only the TCP reads: the TLS layer still hands every record it has already decrypted
 * (`TLSWrap::ClearOut`, 16 KiB at a time) to the parser, which, paused, fails with `HPE_PAUSED`;
 * the server reports a `clientError` and destroys the socket. A request of more than one TLS
 * record (a 20 KB PUT) that arrives while the answer before it is still being written is enough,
 * and the API server's turn budget (src/apiserver/turn-budget.ts) made that common: an answer written in a check phase
 * completes its write only in the next loop turn's check phase, after the poll phase that reads
 * the client's next request. The same holds for a client that pipelines a write behind a large
 * answer it has not read yet, budget or not.
 *
 * Node gives the reads back to the socket's stream once anything listens for its `'data'`
 * (`generateSocketListenerWrapper` → `unconsume`), and a paused stream keeps what arrives in its
 * buffer until the server resumes it, when the answer has drained. A listener added and removed
 * at once does that, for each connection after the HTTP server set it up (this listener is added
 * after the HTTPS server's own `'secureConnection'` listener, so it runs after it). Plain TCP needs
 * none of this: there stopping reads stops every read, and a chunk is parsed whole before the pause.
 * Nor does HTTP/2 (a secure server's `h2` connections, ALPN): its session reads the socket itself
 * and has no such pause, so only HTTP/1 connections are switched, an HTTP/2 server's HTTP/1
 * fallback (`allowHTTP1`) included.
 *
 * Every HTTPS server of svc calls this: the API server, the daemons' secure ports (src/serving)
 * and the node agent's HTTPS port; each meets the pause when a client pipelines a request larger
 * than one TLS record behind an answer it has not read yet.
 *
 * Not a larger high-water mark on the accepted sockets instead: it would only move the threshold
 * (a list's answer passes any), and it is also the back-pressure point of every streamed answer.
 * What reading through the stream costs: a few µs per TLS record read (docs/benchmarks.md).
 */
export function readPausedTlsConnectionsThroughStreams(server: TlsServer): void {
  server.on('secureConnection', readThroughStream);
}

function readThroughStream(socket: TLSSocket): void {
  if (socket.alpnProtocol === 'h2') return;
  socket.on('data', NOOP);
  socket.removeListener('data', NOOP);
}

const NOOP = (): void => {};
