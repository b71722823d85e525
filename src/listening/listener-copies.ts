import { spawn } from 'node:child_process';
import { Server, type Socket } from 'node:net';

/**
 * More accepts per event-loop turn for a server whose loop is slow.
 *
 * libuv (1.46 in Node 20, and later) accepts ONE connection each time the listening socket is
 * reported readable, so a server whose turns take 100 ms accepts ~10 connections a second and the
 * kernel drops SYNs once the backlog is full. There is no knob (UV_TCP_SINGLE_ACCEPT is gone) and
 * Node 20 has no SO_REUSEPORT. What does work: several libuv handles on the same listening socket.
 * Each is its own file descriptor for one socket, each is reported readable in the same poll and
 * each accepts one, so N copies accept N + 1 connections a turn, in this process, as the server's
 * own accepts: remoteAddress, TLS and everything after are untouched, and a copy costs nothing
 * per connection (a copy that finds the queue empty makes one failed accept4 call).
 *
 * Node gives a process a second descriptor for a socket only by passing it over IPC, so at
 * start a helper process is spawned that gets the listening handle and hands it back `copies`
 * times (SCM_RIGHTS makes each a new descriptor), then exits. It never listens itself, so it
 * accepts nothing; it runs only while this function's promise is pending and exits when its
 * channel closes, so it cannot outlive the server. Why not an acceptor process handing over
 * every accepted socket: Node sends one handle per IPC round trip (each waits for the receiver's
 * ACK, which a slow loop answers once a turn): back to one connection a turn.
 */

export interface ListenerCopies {
  /** How many copies listen beside the server's own handle. */
  readonly count: number;
  /** Set when fewer copies than asked could be made (the server still accepts through its own handle). */
  readonly shortfall?: string;
  /**
   * Stops the copies listening at once; resolves when the connections they accepted have closed
   * too (a copy counts its own, so the server's close alone does not wait for them). Call it with
   * the server's close. Idempotent.
   */
  close(): Promise<void>;
}

/** The helper: return the handle it is sent `argv[1]` times, then leave. Plain ASCII JavaScript, run with `node -e`. */
const HELPER = `
const copies = Number(process.argv[1]);
process.on('disconnect', () => process.exit(0));
process.once('message', (message, handle) => {
  let left = copies;
  const next = (error) => {
    if (error || left-- === 0) { handle.close(); process.disconnect(); return; }
    process.send('copy', handle, next);
  };
  next();
});
`;

/** Node's TCP handle; `_handle` is the one way to hand the listening socket itself (not a net.Server that would listen in the helper). */
interface WithHandle {
  readonly _handle: object | null;
}

export async function copyListener(server: Server, copies: number, backlog: number): Promise<ListenerCopies> {
  const listening: Server[] = [];
  let closed = false;
  let closing: Promise<void> | undefined;
  const close = () => {
    closed = true;
    closing ??= Promise.all(listening.splice(0).map((copy) => new Promise<void>((resolve) => copy.close(() => resolve())))).then(() => undefined);
    return closing;
  };
  const handle = (server as unknown as WithHandle)._handle;
  if (copies <= 0 || handle === null) return { count: 0, close };
  const shortfall = await new Promise<string | undefined>((resolve) => {
    const helper = spawn(process.execPath, ['-e', HELPER, String(copies)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // The helper needs none of the parent's preloads (a test runner's or a profiler's).
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let failure: string | undefined;
    helper.on('message', (_message: unknown, copied: unknown) => {
      if (copied === undefined || closed) return;
      const copy = new Server();
      // Accepted here, the socket is the server's: the same 'connection' its own handle emits.
      copy.on('connection', (socket: Socket) => server.emit('connection', socket));
      copy.on('error', (error) => server.emit('error', error));
      // The same backlog as the server's: listen() on a copy sets the shared socket's queue length.
      copy.listen(copied, backlog);
      listening.push(copy);
    });
    helper.on('error', (error) => {
      failure = `no listener copies: ${error.message}`;
    });
    helper.on('exit', (code, signal) => {
      if (failure === undefined && listening.length < copies && !closed) failure = `${listening.length} of ${copies} listener copies (the helper exited with ${signal ?? code})`;
      resolve(failure);
    });
    helper.send('listen', handle as never, (error) => {
      if (error) failure = `no listener copies: ${error.message}`;
    });
  });
  return { count: listening.length, ...(shortfall === undefined ? {} : { shortfall }), close };
}
