// A real HTTP proxy in front of a test API server that can hold back what the server answers: while
// held, response heads, bytes and ends are queued (in order) instead of passed on, so a client
// behind it (an informer) sees its watch events late — the lag between a write and the cache that
// expectations exist for. Release passes the queue on and everything after at once.
import { createServer, request, type Server } from 'node:http';

export interface HoldingProxy {
  readonly url: string;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function holdingProxy(target: string): Promise<HoldingProxy> {
  const backend = new URL(target);
  let held = false;
  let queue: (() => void)[] = [];
  const deliver = (step: () => void) => (held ? queue.push(step) : step());
  const server: Server = createServer((req, res) => {
    const out = request({ host: backend.hostname, port: backend.port, method: req.method, path: req.url, headers: req.headers }, (upstream) => {
      deliver(() => res.writeHead(upstream.statusCode ?? 502, upstream.headers));
      upstream.on('data', (chunk: Buffer) => deliver(() => res.write(chunk)));
      upstream.on('end', () => deliver(() => res.end()));
    });
    req.pipe(out);
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    hold: () => void (held = true),
    release: () => {
      held = false;
      const steps = queue;
      queue = [];
      for (const step of steps) step();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
