/**
 * A TCP proxy in front of a server (an etcd member) that can lose the answer to one request: the
 * fault a client sees when its server dies after carrying out a write and before answering it. It
 * passes every byte on until armed with a marker; the connection whose request bytes carry the
 * marker gets nothing more from the server, and once `carriedOut` says the request took effect,
 * that connection is cut. The client learns only that its connection dropped — the one failure
 * after which it cannot know whether its write happened. Connections made after it pass again.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface AnswerLosingProxy {
  /** `http://127.0.0.1:<port>`, the address to give the client. */
  readonly endpoint: string;
  /**
   * Loses the answer to the next request whose bytes contain `marker`; resolves once its
   * connection is cut, after `carriedOut()` has said yes (polled every 10 ms).
   */
  loseAnswerTo(marker: string, carriedOut: () => Promise<boolean>): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startAnswerLosingProxy(target: string): Promise<AnswerLosingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let armed: { marker: Buffer; onHit: (cut: () => void) => void } | undefined;

  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let holding = false;
    /** The last bytes seen, so a marker split between two chunks is still found. */
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (armed && !holding) {
        const seen = Buffer.concat([tail, chunk]);
        if (seen.includes(armed.marker)) {
          holding = true;
          armed.onHit(() => {
            client.destroy();
            upstream.destroy();
          });
          armed = undefined;
        } else {
          tail = seen.subarray(Math.max(0, seen.length - armed.marker.length + 1));
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!holding) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${listening}`,
    loseAnswerTo(marker, carriedOut) {
      return new Promise<void>((resolve, reject) => {
        armed = {
          marker: Buffer.from(marker),
          onHit: (cut) => {
            void (async () => {
              while (!(await carriedOut())) await sleep(10);
              cut();
            })().then(resolve, reject);
          },
        };
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
