/**
 * A minimal watch client for HTTP-level tests: opens `GET …?watch=1` over node:http, parses the
 * newline-delimited JSON events as they arrive, and lets a test await the next events, a
 * matching event, or the end of the stream; it can also stop reading (pause) and hang up (abort).
 *
 * Waits have a generous guard so that a missing event fails the test with what was seen instead
 * of hanging it; no test should read anything into how long a wait took.
 */
import { request, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: any;
}

export interface OpenWatchOptions {
  /** Bearer token sent as `Authorization`. */
  readonly token?: string;
  readonly headers?: Record<string, string>;
  /** PEM of the CA an `https:` URL's server certificate must chain to. */
  readonly ca?: string;
}

/** How a stream ended: `end` (the server finished the response), `aborted` (by us), `error`. */
export type WatchEnd = 'end' | 'aborted' | 'error';

const GUARD_MS = 20_000;

interface Waiter {
  /** Whether it is satisfied now; called after every event and at the end. */
  check(): boolean;
  fail(error: Error): void;
}

export class WatchStream {
  /** Every event received so far, in order (consumed or not). */
  readonly events: WatchEvent[] = [];
  /** How the stream ended; undefined while it is open. */
  ended: WatchEnd | undefined;
  /** Whether the response was complete (the terminating chunk arrived) when it ended. */
  complete = false;

  private consumed = 0;
  private buffer = '';
  private waiters = new Set<Waiter>();

  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly req: ClientRequest,
    private readonly res: IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.onData(chunk));
    res.on('end', () => this.finish('end'));
    res.on('aborted', () => this.finish('error'));
    res.on('error', () => this.finish('error'));
    res.on('close', () => this.finish(res.complete ? 'end' : 'error'));
    req.on('error', () => this.finish('error'));
  }

  /** Events received but not yet taken by next/until/rest. */
  get pending(): readonly WatchEvent[] {
    return this.events.slice(this.consumed);
  }

  /** The next `n` events (waits for them); rejects if the stream ends first. */
  next(n = 1): Promise<WatchEvent[]> {
    return this.wait(`${n} more event(s)`, () => {
      if (this.events.length - this.consumed < n) return undefined;
      return this.take(this.consumed + n);
    });
  }

  /** Events up to and including the first one that satisfies `predicate`. */
  until(predicate: (event: WatchEvent) => boolean, what = 'a matching event'): Promise<WatchEvent[]> {
    let scanned = this.consumed;
    return this.wait(what, () => {
      for (; scanned < this.events.length; scanned++) {
        if (predicate(this.events[scanned]!)) return this.take(scanned + 1);
      }
      return undefined;
    });
  }

  /** Every remaining event, once the stream has ended. */
  rest(): Promise<WatchEvent[]> {
    return this.wait('the end of the stream', () => (this.ended ? this.take(this.events.length) : undefined), true);
  }

  /** Stops reading: the client's buffers fill and TCP pushes back on the server. */
  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  /** Hangs up, as a client that goes away does. */
  abort(): void {
    if (this.ended) return;
    this.finish('aborted');
    this.req.destroy();
  }

  private take(upTo: number): WatchEvent[] {
    const taken = this.events.slice(this.consumed, upTo);
    this.consumed = upTo;
    return taken;
  }

  private wait<T>(what: string, ready: () => T | undefined, endIsFine = false): Promise<T> {
    const now = ready();
    if (now !== undefined) return Promise.resolve(now);
    if (this.ended && !endIsFine) return Promise.reject(this.failure(what, `the stream ended (${this.ended})`));
    return new Promise<T>((resolve, reject) => {
      const guard = setTimeout(() => waiter.fail(this.failure(what, 'nothing more arrived')), GUARD_MS);
      const waiter: Waiter = {
        check: () => {
          const value = ready();
          if (value !== undefined) {
            clearTimeout(guard);
            resolve(value);
            return true;
          }
          if (this.ended && !endIsFine) {
            clearTimeout(guard);
            reject(this.failure(what, `the stream ended (${this.ended})`));
            return true;
          }
          return false;
        },
        fail: (error) => {
          clearTimeout(guard);
          this.waiters.delete(waiter);
          reject(error);
        },
      };
      this.waiters.add(waiter);
    });
  }

  private failure(what: string, why: string): Error {
    const seen = this.events.map((e) => `${e.type}:${e.object?.metadata?.name ?? ''}@${e.object?.metadata?.resourceVersion ?? ''}`);
    return new Error(`watch: waited for ${what} but ${why}; events so far (${this.consumed} consumed): ${seen.join(' ') || 'none'}`);
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    let added = false;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line === '') continue;
      this.events.push(JSON.parse(line) as WatchEvent);
      added = true;
    }
    if (added) this.wake();
  }

  private finish(how: WatchEnd): void {
    if (this.ended) return;
    this.ended = how;
    this.complete = this.res.complete;
    if (this.buffer.trim() !== '') {
      // A partial last line means the stream was cut mid-event: keep it out of the events.
      this.buffer = '';
    }
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) if (waiter.check()) this.waiters.delete(waiter);
  }
}

/** A refused watch: the status and the parsed body (a Status for the API's errors). */
export interface RefusedWatch {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: any;
}

/**
 * Opens `url` (a collection URL with `watch=1` in its query). Resolves with a WatchStream once the
 * 200 and its headers arrive, or with the refusal (status and parsed body) for any other status.
 */
export function openWatch(url: string, options: OpenWatchOptions = {}): Promise<WatchStream | RefusedWatch> {
  return new Promise((resolve, reject) => {
    const open = url.startsWith('https:') ? httpsRequest : request;
    const req = open(url, {
      method: 'GET',
      agent: false,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      headers: {
        accept: 'application/json',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode === 200) return resolve(new WatchStream(200, res.headers, req, res));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.end();
  });
}

export const isStream = (watch: WatchStream | RefusedWatch): watch is WatchStream => watch instanceof WatchStream;
