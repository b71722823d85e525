import { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import { StatusError } from '../api/index.js';
import { isRecord, statusErrorFrom } from './status.js';
import { CHANNEL, channelMessage, messageBytes, sendMessage } from './stream-channels.js';

/** What an exec or attach connects to, and which streams it opens. */
export interface AttachOptions {
  readonly namespace?: string | undefined;
  /** Required when the pod has more than one container. */
  readonly container?: string | undefined;
  /** Open the command's stdin (`session.stdin`). Default false. */
  readonly stdin?: boolean | undefined;
  /** Default true. */
  readonly stdout?: boolean | undefined;
  /** Default true, except with a tty (a terminal has one output). */
  readonly stderr?: boolean | undefined;
  /** Run in a terminal (`session.resize` sets its size). Default false. */
  readonly tty?: boolean | undefined;
}

export type ExecOptions = AttachOptions;

/** How the command ended, from the Status the server sends on the error channel. */
export interface ExecResult {
  /** 0 for `Success`, the code of a `NonZeroExitCode` failure. */
  readonly exitCode: number;
  /** The Status as sent (`Success`, or `Failure` with reason `NonZeroExitCode`). */
  readonly status: Readonly<Record<string, unknown>>;
}

/** The query of an exec or attach (the API server's names; `command` repeated). */
export function attachQuery(options: AttachOptions, command?: readonly string[]): URLSearchParams {
  const query = new URLSearchParams();
  const tty = options.tty ?? false;
  if (options.container !== undefined) query.set('container', options.container);
  for (const part of command ?? []) query.append('command', part);
  query.set('stdin', String(options.stdin ?? false));
  query.set('stdout', String(options.stdout ?? true));
  query.set('stderr', String(options.stderr ?? !tty));
  query.set('tty', String(tty));
  return query;
}

/**
 * One exec or attach session over a WebSocket (v5.channel.k8s.io, else v4): `stdin` a Writable
 * (its end closes the command's stdin — v5 only: under v4 stdin stays open until `close()`),
 * `stdout` and `stderr` Readables that end when the session does, `resize` for a tty, and
 * `result`: the exit code from the error channel's Status. `result` rejects with a StatusError
 * when the session failed (the container is gone, the runtime refused) or the connection closed
 * without a Status. Back-pressure: a Readable nobody reads pauses the socket.
 */
export class ExecSession {
  /** The subprotocol the server chose. */
  readonly protocol: string;
  /** The command's stdin; undefined unless the session was opened with `stdin: true`. */
  readonly stdin: Writable | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves when the command has ended (see ExecResult); rejects when the session failed. */
  readonly result: Promise<ExecResult>;
  readonly #socket: WebSocket;
  readonly #status: Buffer[] = [];
  /** Readables that asked for no more data: the socket is paused while any does. */
  readonly #full = new Set<Readable>();

  constructor(socket: WebSocket, options: AttachOptions) {
    this.#socket = socket;
    this.protocol = socket.protocol;
    const resume = (stream: Readable) => {
      this.#full.delete(stream);
      if (this.#full.size === 0) socket.resume();
    };
    this.stdout = new Readable({ read: () => resume(this.stdout) });
    this.stderr = new Readable({ read: () => resume(this.stderr) });
    this.stdin = options.stdin ? this.#stdinWritable() : undefined;
    this.result = new Promise<ExecResult>((resolve, reject) => {
      socket.on('message', (data) => {
        const bytes = messageBytes(data);
        if (bytes.length === 0) return;
        const payload = bytes.subarray(1);
        switch (bytes[0]) {
          case CHANNEL.stdout:
            this.#push(this.stdout, payload);
            break;
          case CHANNEL.stderr:
            this.#push(this.stderr, payload);
            break;
          case CHANNEL.error:
            this.#status.push(Buffer.from(payload));
            break;
        }
      });
      socket.once('close', () => {
        this.stdout.push(null);
        this.stderr.push(null);
        this.stdin?.destroy();
        try {
          resolve(this.#outcome());
        } catch (error) {
          reject(error);
        }
      });
      socket.on('error', (error) => {
        this.stdout.destroy(error);
        this.stderr.destroy(error);
        reject(error);
      });
    });
    // An unobserved failure is the caller's to read from `result`; it must not crash the process meanwhile.
    this.result.catch(() => undefined);
    // The transport hands the socket over paused: nothing was emitted before these listeners.
    socket.resume();
  }

  #push(stream: Readable, payload: Buffer): void {
    if (stream.destroyed) return;
    if (!stream.push(Buffer.from(payload))) {
      this.#full.add(stream);
      this.#socket.pause();
    }
  }

  #stdinWritable(): Writable {
    const socket = this.#socket;
    const v5 = socket.protocol === 'v5.channel.k8s.io';
    return new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        sendMessage(socket, channelMessage(CHANNEL.stdin, chunk)).then(() => done(), done);
      },
      final: (done) => {
        // v5 says "stdin is closed" with the close channel; v4 has no way to.
        if (!v5 || socket.readyState !== socket.OPEN) return done();
        sendMessage(socket, channelMessage(CHANNEL.close, Uint8Array.of(CHANNEL.stdin))).then(() => done(), done);
      },
    });
  }

  /** The terminal's size (a tty session); ignored by the server otherwise. */
  resize(width: number, height: number): void {
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    this.#socket.send(channelMessage(CHANNEL.resize, Buffer.from(JSON.stringify({ Width: width, Height: height }))), { binary: true });
  }

  /** Hangs up (the command goes on running unless the runtime ends it with its streams). */
  close(): void {
    this.#socket.close(1000);
  }

  #outcome(): ExecResult {
    if (this.#status.length === 0) throw new StatusError({ reason: 'InternalError', message: 'the exec stream closed without a Status on its error channel' });
    const text = Buffer.concat(this.#status).toString('utf8');
    let status: unknown;
    try {
      status = JSON.parse(text);
    } catch {
      throw new StatusError({ reason: 'InternalError', message: `the exec stream's error channel held no Status: ${text.slice(0, 200)}` });
    }
    if (!isRecord(status)) throw new StatusError({ reason: 'InternalError', message: `the exec stream's error channel held no Status: ${text.slice(0, 200)}` });
    if (status['status'] === 'Success') return { exitCode: 0, status };
    const exitCode = status['reason'] === 'NonZeroExitCode' ? exitCodeCause(status) : undefined;
    if (exitCode !== undefined) return { exitCode, status };
    throw statusErrorFrom(typeof status['code'] === 'number' ? status['code'] : 500, status);
  }
}

function exitCodeCause(status: Record<string, unknown>): number | undefined {
  const details = status['details'];
  const causes = isRecord(details) && Array.isArray(details['causes']) ? (details['causes'] as unknown[]) : [];
  for (const cause of causes) {
    if (isRecord(cause) && cause['reason'] === 'ExitCode' && typeof cause['message'] === 'string') {
      const code = Number(cause['message']);
      if (Number.isInteger(code)) return code;
    }
  }
  return undefined;
}
