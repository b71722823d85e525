/**
 * Listener copies (src/listening/listener-copies.ts): a server whose event loop is blocked while
 * a burst of clients connects accepts the burst in a bounded number of loop turns — 64 a turn
 * with 63 copies — where libuv alone accepts one a turn (shown here too, so a libuv that changes
 * is noticed). Turns are counted, not milliseconds. Closing stops every copy listening, and the
 * helper that made them is gone once they exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../src/encoding/index.js';
import { copyListener, listenBacklog, type ListenerCopies } from '../../src/listening/index.js';
import { connectWhileBlocked, turnsUntil, type Burst } from '../support/blocked-loop-clients.js';

const BURST = 200;

let server: Server | undefined;
let copies: ListenerCopies | undefined;
let burst: Burst | undefined;
afterEach(async () => {
  await burst?.close();
  for (const socket of accepted) socket.destroy();
  await copies?.close();
  if (server?.listening) await new Promise<void>((resolve) => server?.close(() => resolve()));
  accepted.length = 0;
  [server, copies, burst] = [undefined, undefined, undefined];
});

const accepted: import('node:net').Socket[] = [];

/** An HTTPS server on a free loopback port with `n` listener copies; `perTurn` counts its connections turn by turn. */
async function listening(n: number, perTurn: number[]): Promise<{ port: number; copies: ListenerCopies }> {
  const now = Date.now();
  const tls = selfSignedCertificate({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], dnsNames: [], notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) });
  server = createServer(tls);
  server.on('connection', (socket: import('node:net').Socket) => {
    accepted.push(socket);
    perTurn[perTurn.length - 1] = (perTurn[perTurn.length - 1] ?? 0) + 1;
  });
  const { backlog } = listenBacklog(undefined);
  await new Promise<void>((resolve) => server?.listen({ host: '127.0.0.1', port: 0, backlog }, () => resolve()));
  copies = await copyListener(server, n, backlog);
  return { port: (server.address() as AddressInfo).port, copies };
}

/** This process's children (the test runner's worker is the parent of anything it spawns). */
function children(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // The ppid is the 4th field, after the command in parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('listener copies', () => {
  it('accept a burst that waited on a blocked loop in a bounded number of turns, not one a turn', async () => {
    const perTurn: number[] = [0];
    const { port, copies } = await listening(63, perTurn);
    expect(copies.count).toBe(63);
    burst = await connectWhileBlocked({ port, count: BURST });
    const turns = await turnsUntil(() => accepted.length >= BURST, perTurn);
    // 64 handles: 200 connections in 4 turns; one spare turn for the poll that sees the first.
    expect(turns).toBeLessThanOrEqual(Math.ceil(BURST / 64) + 1);
    expect(Math.max(...perTurn)).toBeGreaterThan(1);
  });

  it('are what makes the difference: without them libuv accepts one connection a turn', async () => {
    const perTurn: number[] = [0];
    const { port } = await listening(0, perTurn);
    burst = await connectWhileBlocked({ port, count: BURST });
    const turns = await turnsUntil(() => accepted.length >= BURST, perTurn);
    expect(Math.max(...perTurn)).toBe(1);
    expect(turns).toBeGreaterThanOrEqual(BURST);
  });

  it('leave no helper process behind, and stop listening when closed', async () => {
    const before = children();
    const { port, copies } = await listening(8, [0]);
    expect(copies.count).toBe(8);
    expect(children()).toEqual(before);
    await copies.close();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    // A copy still listening would take this connection: the socket must be closed for good.
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});

describe('the listen backlog', () => {
  it('is net.core.somaxconn unless asked, and capped at it with a message', () => {
    expect(listenBacklog(undefined, () => 4096)).toEqual({ backlog: 4096 });
    expect(listenBacklog(undefined, () => undefined)).toEqual({ backlog: 511 });
    expect(listenBacklog(1024, () => 4096)).toEqual({ backlog: 1024 });
    const capped = listenBacklog(65535, () => 4096);
    expect(capped.backlog).toBe(4096);
    expect(capped.capped).toMatch(/65535 is capped at 4096 by net.core.somaxconn/);
  });
});
