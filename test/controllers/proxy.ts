// A real HTTP proxy in front of a test API server that can change what discovery says: hide a
// group from `/apis` (as if it were not served yet) or fail a group version's resource list (a
// broken aggregated API). Everything else, watches included, is piped through unchanged.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

export interface DiscoveryProxy {
  readonly url: string;
  /** Groups left out of `/apis`. */
  readonly hidden: Set<string>;
  /** Discovery paths (`/apis/<g>/<v>`) answered 503. */
  readonly failing: Set<string>;
  close(): Promise<void>;
}

export async function discoveryProxy(target: string): Promise<DiscoveryProxy> {
  const backend = new URL(target);
  const hidden = new Set<string>();
  const failing = new Set<string>();
  const forward = (req: IncomingMessage, onResponse: (res: IncomingMessage) => void) => {
    const out = request({ host: backend.hostname, port: backend.port, method: req.method, path: req.url, headers: req.headers }, onResponse);
    req.pipe(out);
    return out;
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (failing.has(path)) {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'ServiceUnavailable', code: 503, message: `${path} is unavailable` }));
      return;
    }
    const out = forward(req, (upstream) => {
      if (path !== '/apis' || hidden.size === 0) {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
        return;
      }
      let text = '';
      upstream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      upstream.on('end', () => {
        const doc = JSON.parse(text) as { groups: { name: string }[] };
        doc.groups = doc.groups.filter((g) => !hidden.has(g.name));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      });
    });
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    hidden,
    failing,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
