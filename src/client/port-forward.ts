import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import { channelMessage, messageBytes, sendMessage } from './stream-channels.js';

export interface PortForwardOptions {
  readonly namespace?: string | undefined;
}

export interface ForwardPortOptions extends PortForwardOptions {
  /** The local port to listen on; default 0 (any free port: read `port`). */
  readonly localPort?: number | undefined;
  /** The local address; default `127.0.0.1`. */
  readonly host?: string | undefined;
}

/** The query of a port-forward: the ports, in channel order. */
export function portForwardQuery(ports: readonly number[]): URLSearchParams {
  const query = new URLSearchParams();
  for (const port of ports) query.append('ports', String(port));
  return query;
}

/**
 * One port-forward connection (v4.channel.k8s.io): for the i-th port, channel 2i carries the
 * data and 2i+1 the errors, and the server begins each with the port number (2 bytes, little
 * endian), which is not data. `stream(port)` is that port's data as a Duplex: what is written
 * goes to the pod's port, what the pod answers is read; an error the server reports on the
 * error channel destroys the Duplex with it. A WebSocket port-forward carries one TCP
 * connection per port: open a session per connection (`Client.forwardPort` does).
 */
export class PortForwardSession {
  readonly #socket: WebSocket;
  readonly #streams = new Map<number, Duplex>();
  readonly #ports: readonly number[];
  /** Per channel: whether its port prefix has been read yet. */
  readonly #prefixed = new Set<number>();
  readonly #errors = new Map<number, Buffer[]>();

  constructor(socket: WebSocket, ports: readonly number[]) {
    this.#socket = socket;
    this.#ports = ports;
    ports.forEach((port, i) => {
      const duplex = new Duplex({
        read: () => socket.resume(),
        write: (chunk: Buffer, _encoding, done) => {
          sendMessage(socket, channelMessage(2 * i, chunk)).then(() => done(), done);
        },
        // A channel cannot be half-closed: the pod's side ends when the connection does.
        final: (done) => done(),
      });
      duplex.on('close', () => {
        if ([...this.#streams.values()].every((d) => d.destroyed)) socket.close(1000);
      });
      this.#streams.set(port, duplex);
    });
    socket.on('message', (data) => this.#receive(messageBytes(data)));
    socket.once('close', () => {
      for (const [i, port] of this.#ports.entries()) {
        const duplex = this.#streams.get(port)!;
        const error = this.#errors.get(2 * i + 1);
        if (error && error.length > 0) duplex.destroy(new Error(`port-forward to port ${port}: ${Buffer.concat(error).toString('utf8')}`));
        else duplex.push(null);
      }
    });
    socket.on('error', (error) => {
      for (const duplex of this.#streams.values()) duplex.destroy(error);
    });
    // The transport hands the socket over paused: nothing was emitted before these listeners.
    socket.resume();
  }

  #receive(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const channel = bytes[0]!;
    let payload = bytes.subarray(1);
    if (!this.#prefixed.has(channel)) {
      // The port number the server starts each channel with.
      if (payload.length < 2) return;
      this.#prefixed.add(channel);
      payload = payload.subarray(2);
    }
    if (payload.length === 0) return;
    const port = this.#ports[channel >> 1];
    if (port === undefined) return;
    if (channel % 2 === 1) {
      let error = this.#errors.get(channel);
      if (!error) this.#errors.set(channel, (error = []));
      error.push(Buffer.from(payload));
      return;
    }
    const duplex = this.#streams.get(port)!;
    if (!duplex.destroyed && !duplex.push(Buffer.from(payload))) this.#socket.pause();
  }

  /** The data stream of `port` (one of the ports the session was opened with). */
  stream(port: number): Duplex {
    const duplex = this.#streams.get(port);
    if (!duplex) throw new RangeError(`port ${port} is not one of this session's (${this.#ports.join(', ')})`);
    return duplex;
  }

  close(): void {
    this.#socket.close(1000);
  }
}

/** A local TCP listener whose every connection is forwarded to one port of a pod. */
export interface PortForwarder {
  /** The local port (the one chosen when `localPort` was 0). */
  readonly port: number;
  readonly address: AddressInfo;
  /** Stops listening and ends every forwarded connection. */
  close(): Promise<void>;
}

/** Listens on `host:localPort`; each accepted socket is joined to a session `open()` makes. */
export async function listenForwarding(open: () => Promise<PortForwardSession>, remotePort: number, options: ForwardPortOptions, onError?: (error: unknown) => void): Promise<PortForwarder> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((local) => {
    sockets.add(local);
    local.once('close', () => sockets.delete(local));
    local.pause();
    open().then(
      (session) => {
        const remote = session.stream(remotePort);
        local.pipe(remote);
        remote.pipe(local);
        local.once('close', () => session.close());
        local.on('error', () => session.close());
        remote.once('error', (error) => {
          onError?.(error);
          local.destroy();
        });
        remote.once('end', () => local.end());
        local.resume();
      },
      (error: unknown) => {
        onError?.(error);
        local.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.localPort ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    port: address.port,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
