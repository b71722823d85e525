import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Clients that connect to a server while the server's event loop is blocked: they run in a
 * process of their own (this one is the server's), and this process busy-waits until the kernel
 * has completed every connection's handshake (each is then in the listen queue, not yet accepted),
 * so the test starts counting turns with the whole burst waiting to be accepted.
 */

/** What the client process does once told to go: open `count` connections, then, with `https`, one GET on each. */
export interface BurstOptions {
  readonly port: number;
  readonly count: number;
  /** A GET on each connection (HTTPS, a fresh connection each), with this client certificate. */
  readonly https?: { readonly path: string; readonly ca: string; readonly cert: string; readonly key: string };
}

export interface HttpsAnswer {
  readonly status: number;
  readonly body: string;
}

export interface Burst {
  /** The GETs' answers (with `https`), once all are in. */
  answers(): Promise<HttpsAnswer[]>;
  /** Ends the client process and its connections. */
  close(): Promise<void>;
}

const CLIENTS = `
const net = require('node:net');
const https = require('node:https');
const fs = require('node:fs');
const [marker, options] = [process.argv[1], JSON.parse(process.argv[2])];
const sockets = [];
process.on('disconnect', () => process.exit(0));
process.once('message', () => {
  let connected = 0;
  const answers = [];
  const onConnect = () => { if (++connected === options.count) fs.writeFileSync(marker, ''); };
  for (let i = 0; i < options.count; i++) {
    if (!options.https) {
      const socket = net.connect(options.port, '127.0.0.1', onConnect);
      socket.on('error', () => {});
      sockets.push(socket);
      continue;
    }
    const { path, ca, cert, key } = options.https;
    const req = https.get({ host: '127.0.0.1', port: options.port, path, ca, cert, key, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => {
        answers.push({ status: res.statusCode, body });
        if (answers.length === options.count) process.send(answers);
      });
    });
    req.on('error', (error) => {
      answers.push({ status: 0, body: error.message });
      if (answers.length === options.count) process.send(answers);
    });
    req.on('socket', (socket) => socket.once('connect', onConnect));
  }
});
process.send('ready');
`;

/** Busy-waits, as a server whose loop is starved would, until `marker` exists (the guard only stops a broken test from hanging). */
function blockUntil(marker: string): void {
  const guard = Date.now() + 60_000;
  while (!existsSync(marker)) {
    if (Date.now() > guard) throw new Error('the clients never completed their connections');
  }
}

/** Starts the clients, blocks this process's loop until all `count` connections are in the listen queue, and returns. */
export async function connectWhileBlocked(options: BurstOptions): Promise<Burst> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-burst-'));
  const marker = join(dir, 'connected');
  const child: ChildProcess = spawn(process.execPath, ['-e', CLIENTS, marker, JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
  });
  const answers = new Promise<HttpsAnswer[]>((resolve) => child.on('message', (message) => resolve(message as HttpsAnswer[])));
  child.send('go');
  blockUntil(marker);
  return {
    answers: () => answers,
    async close() {
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Event-loop turns (setImmediate to setImmediate) until `done()`: each turn polls the sockets once. */
export async function turnsUntil(done: () => boolean, perTurn?: number[]): Promise<number> {
  let turns = 0;
  while (!done()) {
    turns += 1;
    perTurn?.push(0);
    await nextTurn();
  }
  return turns;
}
