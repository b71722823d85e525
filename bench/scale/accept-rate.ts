// Accepts a second by a server whose event loop is kept busy (issue #26: a CPU-starved API server
// took a turn every 75-220 ms and, one accept a turn, took ~5 connections a second while ~10,000
// hollow-node connections waited and the 511 backlog dropped SYNs). An HTTPS server in this
// process spins BUSY_MS in every turn; a client process opens CONNECTIONS TCP connections at once
// and keeps them; the figure is, from the first accept to the last, how many the server accepted a second and in how many turns,
// with COPIES listener copies (src/listening) and with none, ROUNDS times each, alternating,
// in one run (same-run A/B: the machine's load touches both alike). Turns are the robust figure.
//   ulimit -n 20000; CONNECTIONS=2000 BUSY_MS=100 ROUNDS=3 npm run bench:accept-rate
import { spawn } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { selfSignedCertificate } from '../../src/encoding/index.js';
import { copyListener, listenBacklog } from '../../src/listening/index.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 2000);
const BUSY_MS = Number(process.env.BUSY_MS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const COPIES = Number(process.env.COPIES ?? 63);

const CLIENTS = `
const net = require('node:net');
const [port, count] = process.argv.slice(1).map(Number);
const sockets = [];
let refused = 0;
process.on('disconnect', () => process.exit(0));
for (let i = 0; i < count; i++) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => { refused++; });
  sockets.push(socket);
}
`;

interface Round {
  readonly copies: number;
  readonly seconds: number;
  readonly turns: number;
  readonly perSecond: number;
}

async function round(copies: number): Promise<Round> {
  const now = Date.now();
  const server = createServer(selfSignedCertificate({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], dnsNames: [], notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) }));
  const accepted: Socket[] = [];
  server.on('connection', (socket: Socket) => accepted.push(socket));
  const { backlog } = listenBacklog(undefined);
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0, backlog }, () => resolve()));
  const listener = await copyListener(server, copies, backlog);
  const port = (server.address() as AddressInfo).port;
  const clients = spawn(process.execPath, ['-e', CLIENTS, String(port), String(CONNECTIONS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, NODE_OPTIONS: '' } });
  // Counted from the turn that accepts the first connection: the client process's start is not the server's doing.
  let started = 0;
  let turns = 0;
  await new Promise<void>((resolve) => {
    const turn = () => {
      if (accepted.length > 0 && started === 0) started = performance.now();
      if (started !== 0) turns += 1;
      const until = performance.now() + BUSY_MS;
      while (performance.now() < until);
      if (accepted.length >= CONNECTIONS) resolve();
      else setImmediate(turn);
    };
    setImmediate(turn);
  });
  const seconds = (performance.now() - started) / 1000;
  clients.kill();
  await new Promise<void>((resolve) => clients.once('exit', () => resolve()));
  for (const socket of accepted) socket.destroy();
  await listener.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { copies: listener.count, seconds, turns, perSecond: CONNECTIONS / seconds };
}

const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) {
  for (const copies of [0, COPIES]) {
    const result = await round(copies);
    rounds.push(result);
    console.log(`copies=${result.copies} connections=${CONNECTIONS} busy=${BUSY_MS}ms: ${result.turns} turns, ${result.seconds.toFixed(2)} s, ${result.perSecond.toFixed(0)} accepts/s`);
  }
}
for (const copies of [0, COPIES]) {
  const mine = rounds.filter((r) => r.copies === copies).map((r) => r.perSecond).sort((a, b) => a - b);
  const turns = rounds.filter((r) => r.copies === copies).map((r) => r.turns).sort((a, b) => a - b);
  console.log(`copies=${copies}: median ${mine[Math.floor(mine.length / 2)]?.toFixed(0)} accepts/s, median ${turns[Math.floor(turns.length / 2)]} turns`);
}
