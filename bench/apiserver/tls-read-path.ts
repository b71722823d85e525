// What reading requests through the socket's stream (src/tls-connections/paused-tls-reads.ts) costs
// against Node's default, where the HTTP parser reads the TLS handle itself: two HTTPS servers in
// processes of their own, alike but for that, with a handler that does nothing but answer (so the
// read path is as large a share of a request as it can be: an upper bound of the cost on the
// API server's requests). Phases alternate between the two under the same load: keep-alive
// requests from CONNECTIONS connections, each sending its next request when the answer came, for
// SECONDS. Reported per phase: the server process's CPU (user + system) per request.
//   node --import tsx bench/apiserver/tls-read-path.ts
//   BODY=20000 …      each request a PUT of that many bytes (default 0: a GET)
//   PHASES=4 …        rounds (each runs both servers), CONNECTIONS=16, SECONDS=5, ANSWER=1000 (bytes)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { selfSignedCertificate } from '../../src/encoding/index.js';
import { readPausedTlsConnectionsThroughStreams } from '../../src/tls-connections/index.js';

const BODY = Number(process.env['BODY'] ?? 0);
const ANSWER = Number(process.env['ANSWER'] ?? 1000);
const PHASES = Number(process.env['PHASES'] ?? 4);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 16);
const SECONDS = Number(process.env['SECONDS'] ?? 5);

type Variant = 'parser reads the handle (Node default)' | 'through the stream (svc)';

if (process.argv[2] === 'serve') {
  const now = Date.now();
  const server = createServer(
    selfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) }),
    (req, res) => {
      req.resume();
      req.on('end', () => res.end(Buffer.alloc(ANSWER, 'a')));
    },
  );
  if (process.argv[3] === 'stream') readPausedTlsConnectionsThroughStreams(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send!({ cpuUs: user + system });
    } else if (message === 'stop') process.exit(0);
  });
  process.send!({ port: (server.address() as AddressInfo).port });
} else {
  const start = async (variant: Variant): Promise<{ variant: Variant; child: ChildProcess; port: number }> => {
    const child = fork(new URL(import.meta.url).pathname, ['serve', variant.startsWith('through') ? 'stream' : 'handle'], { execArgv: ['--import', 'tsx'] });
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    return { variant, child, port };
  };
  const cpuOf = async (child: ChildProcess): Promise<number> => {
    child.send('cpu');
    const [{ cpuUs }] = (await once(child, 'message')) as [{ cpuUs: number }];
    return cpuUs;
  };
  const servers = [await start('parser reads the handle (Node default)'), await start('through the stream (svc)')];
  const body = BODY > 0 ? Buffer.alloc(BODY, 'b') : undefined;
  const perRequest = new Map<Variant, number[]>();
  console.log(`load ${loadavg()[0]!.toFixed(1)}; ${CONNECTIONS} connections, ${body ? `PUT ${BODY} B` : 'GET'}, answer ${ANSWER} B, ${SECONDS} s a phase`);
  for (let round = 0; round < PHASES; round++) {
    // Alternate which goes first, so load drift falls on both.
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      const dispatcher = new Agent({ connections: CONNECTIONS, pipelining: 1, connect: { rejectUnauthorized: false } });
      const url = `https://127.0.0.1:${server.port}/thing`;
      const until = Date.now() + SECONDS * 1000;
      let requests = 0;
      const cpuBefore = await cpuOf(server.child);
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (Date.now() < until) {
            const answer = await request(url, { dispatcher, method: body ? 'PUT' : 'GET', ...(body ? { body } : {}) });
            await answer.body.arrayBuffer();
            requests++;
          }
        }),
      );
      const cpuUs = (await cpuOf(server.child)) - cpuBefore;
      await dispatcher.close();
      const us = cpuUs / requests;
      perRequest.set(server.variant, [...(perRequest.get(server.variant) ?? []), us]);
      console.log(`round ${round + 1} ${server.variant}: ${requests} requests, server CPU ${us.toFixed(1)} µs a request (load ${loadavg()[0]!.toFixed(1)})`);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [a, b] = servers.map((s) => mean(perRequest.get(s.variant)!));
  console.log(`mean server CPU a request: ${servers[0]!.variant} ${a!.toFixed(1)} µs, ${servers[1]!.variant} ${b!.toFixed(1)} µs (${(b! - a!).toFixed(1)} µs, ${((b! / a! - 1) * 100).toFixed(1)} %)`);
  for (const server of servers) server.child.send('stop');
}
