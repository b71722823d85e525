// The floor under a Lease renewal's CPU: what an HTTPS request alone in its loop turn costs a
// server that does nothing with it (Node's `https` answering a fixed body), and what Fastify set up
// as the API server sets it up (buffer body parsers, two callback onRequest hooks, an onResponse
// hook, the `/apis/*` routes of every method, a pino logger at `warn`, an async handler) adds to
// it. Each server runs in a process of its own; both get the same requests at the same time: a
// PUT of a Lease-sized protobuf body every 1000/RATE ms, one socket each, one request in flight,
// as a node's renewal arrives (bench/scale/lease-renewals.ts with CONNECTIONS). Per window: each
// server process's CPU (/proc, user + system, all threads) per request answered.
//   node --import tsx bench/apiserver/https-floor.ts
//   RATE=100 WINDOW_S=30 ROUNDS=8 MODES=raw,fastify …   (a mode twice runs two servers of it:
//   the spread between two alike processes, to read the others' difference against)
//   NICE=-20 …   every thread of the servers and of this process at that nice level (root)
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { createServer, Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import Fastify, { type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { selfSignedCertificate } from '../../src/encoding/index.js';
import { cpuTicks, MS_PER_TICK } from '../support/proc.js';

const RATE = Number(process.env['RATE'] ?? 100);
const WINDOW_MS = Number(process.env['WINDOW_S'] ?? 30) * 1000;
const ROUNDS = Number(process.env['ROUNDS'] ?? 6);
const MODES = (process.env['MODES'] ?? 'raw,fastify').split(',');
const NICE = process.env['NICE'];
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const PATH = '/apis/coordination.k8s.io/v1/namespaces/svc-node-lease/leases/hollow-00001';

if (process.argv[2] === 'serve') {
  const mode = process.argv[3]!;
  const now = Date.now();
  const tls = selfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
  const answer = Buffer.alloc(450, 7);
  let port: number;
  if (mode === 'raw') {
    const server = createServer(tls, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (Buffer.concat(chunks).length === 0) throw new Error('no body');
        res.writeHead(200, { 'content-type': PROTOBUF, 'content-length': answer.length });
        res.end(answer);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  } else {
    const app = Fastify({ logger: { level: 'warn' }, https: tls, requestTimeout: 60_000 });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(['application/json', PROTOBUF], { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.decorateRequest('caller', undefined);
    app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      (request as unknown as { caller: string }).caller = String(request.headers.authorization);
      done();
    });
    app.addHook('onRequest', (_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => done());
    app.addHook('onResponse', (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      void reply.elapsedTime;
      done();
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      if ((request.body as Buffer).length === 0) throw new Error('no body');
      return reply.code(200).type(PROTOBUF).send(answer);
    };
    for (const url of ['/api', '/api/*', '/apis', '/apis/*']) app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url, handler });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  }
  process.send!({ port });
} else {
  const renice = (pid: number) => {
    const result = spawnSync('renice', ['-n', NICE!, '-p', ...readdirSync(`/proc/${pid}/task`)], { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`renice of ${pid} failed`);
  };
  interface Side {
    readonly mode: string;
    readonly child: ChildProcess;
    readonly port: number;
    readonly agent: Agent;
    answered: number;
    busy: boolean;
  }
  const sides: Side[] = [];
  for (const mode of MODES) {
    const child = fork(new URL(import.meta.url).pathname, ['serve', mode], { execArgv: ['--import', 'tsx'] });
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    sides.push({ mode, child, port, agent: new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false }), answered: 0, busy: false });
  }
  process.once('exit', () => sides.forEach((side) => side.child.kill()));
  if (NICE !== undefined) for (const pid of [process.pid, ...sides.map((side) => side.child.pid!)]) renice(pid);
  const body = Buffer.alloc(420, 5);
  const headers = { 'content-type': PROTOBUF, accept: `${PROTOBUF}, application/json`, authorization: 'Bearer abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', 'user-agent': 'bench-https-floor', 'content-length': body.length };
  const put = (side: Side): void => {
    side.busy = true;
    const req = request({ host: '127.0.0.1', port: side.port, method: 'PUT', path: PATH, agent: side.agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        side.answered++;
        side.busy = false;
      });
    });
    req.on('error', () => void (side.busy = false));
    req.end(body);
  };
  // Each when it is due, as lease-renewals.ts paces renewals; a side still answering skips its turn.
  const began = performance.now();
  let sent = 0;
  const ticker = setInterval(() => {
    const owed = Math.floor(((performance.now() - began) * RATE) / 1000);
    if (owed - sent > RATE / 50) sent = owed - 1;
    for (; sent < owed; sent++) for (const side of sides) if (!side.busy) put(side);
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
  for (let round = 0; round < ROUNDS; round++) {
    const from = sides.map((side) => ({ ticks: cpuTicks(side.child.pid!), answered: side.answered }));
    const loadBefore = load();
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const row: Record<string, string | number> = { round, load: `${loadBefore} → ${load()}` };
    sides.forEach((side, i) => {
      const answered = side.answered - from[i]!.answered;
      row[`${i} ${side.mode}`] = `${answered} requests, ${Math.round(((cpuTicks(side.child.pid!) - from[i]!.ticks) * MS_PER_TICK * 1000) / Math.max(1, answered))} µs each`;
    });
    console.log(JSON.stringify(row));
  }
  clearInterval(ticker);
  process.exit(0);
}
