/**
 * Helpers of the HTTP read and watch suite: ConfigMap fixtures, a per-server client that makes
 * fresh namespaces, writes that must succeed, paged lists and watches it closes after each test.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { isStream, openWatch, type RefusedWatch, type WatchEvent, type WatchStream } from '../support/watch-client.js';
import { TOKEN, type CallResult, type TestServer } from './harness.js';

export const cm = (name: string, data: Record<string, string> = { v: '1' }, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});
export const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
export const rvOf = (object: any): number => Number(object.metadata.resourceVersion);
export const names = (items: any[]) => items.map((item) => item.metadata.name as string);
/** name → resourceVersion of a list's items (or of objects). */
export const versions = (items: any[]) => Object.fromEntries(items.map((item) => [item.metadata.name as string, item.metadata.resourceVersion as string]));
export const brief = (e: WatchEvent) => ({ type: e.type, name: e.object.metadata?.name, rv: rvOf(e.object) });

export function expectStatus(res: { status: number; body: any }, code: number, reason: string) {
  expect(res.status).toBe(code);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  expect(typeof res.body.message).toBe('string');
}

/**
 * The most a loopback connection can buffer between a server's write and a client that stopped
 * reading: the kernel's largest send plus receive buffers (Linux), else a generous guess.
 */
export function socketBufferBytes(): number {
  const max = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/).pop());
  try {
    return max('/proc/sys/net/ipv4/tcp_rmem') + max('/proc/sys/net/ipv4/tcp_wmem');
  } catch {
    return 64 * 1024 * 1024;
  }
}


/** Per-server helpers: fresh namespaces, writes that must succeed, watches closed after each test. */
export class Client {
  private static count = 0;
  private readonly streams = new Set<WatchStream>();

  constructor(readonly s: TestServer) {}

  async namespace(prefix: string): Promise<string> {
    const name = `${prefix}-${++Client.count}`;
    const res = await this.s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    expect(res.status).toBe(201);
    return name;
  }

  async create(ns: string, name: string, data?: Record<string, string>, labels?: Record<string, string>): Promise<any> {
    const res = await this.s.call('POST', cmPath(ns), cm(name, data, labels));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  async update(ns: string, current: any, change: { data?: Record<string, string>; labels?: Record<string, string> }): Promise<any> {
    const body = {
      ...current,
      ...(change.data ? { data: change.data } : {}),
      metadata: { ...current.metadata, ...(change.labels ? { labels: change.labels } : {}) },
    };
    const res = await this.s.call('PUT', `${cmPath(ns)}/${current.metadata.name}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  /** Deletes and returns the store revision after it (the delete's, as nothing else writes). */
  async remove(ns: string, name: string): Promise<number> {
    const res = await this.s.call('DELETE', `${cmPath(ns)}/${name}`);
    expect(res.status).toBe(200);
    return this.s.store.revision();
  }

  async list(path: string, query = ''): Promise<CallResult> {
    return this.s.call('GET', `${path}${query ? `?${query}` : ''}`);
  }

  /**
   * Every page of a paged list: the pages and all their items. Later pages repeat the request
   * with the token and without resourceVersion(Match), as client-go's pager does.
   */
  async pages(path: string, query: string): Promise<{ pages: any[]; items: any[] }> {
    const pages: any[] = [];
    let token: string | undefined;
    do {
      const params = new URLSearchParams(query);
      if (token) {
        params.delete('resourceVersion');
        params.delete('resourceVersionMatch');
        params.set('continue', token);
      }
      const res = await this.list(path, params.toString());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body);
      token = res.body.metadata.continue || undefined;
    } while (token && pages.length < 100);
    return { pages, items: pages.flatMap((p) => p.items) };
  }

  /** Opens a watch that must be accepted (200); it is aborted after the test if still open. */
  async watch(path: string, query = '', flag = '1'): Promise<WatchStream> {
    const w = await openWatch(`${this.s.url}${path}?watch=${flag}${query ? `&${query}` : ''}`, { token: TOKEN });
    if (!isStream(w)) throw new Error(`watch refused: ${w.status} ${JSON.stringify(w.body)}`);
    this.streams.add(w);
    return w;
  }

  /** A watch that must be refused before any stream. */
  async refused(path: string, query: string): Promise<RefusedWatch> {
    const w = await openWatch(`${this.s.url}${path}?${query}`, { token: TOKEN });
    if (isStream(w)) {
      this.streams.add(w);
      throw new Error(`watch ${query} was accepted`);
    }
    return w;
  }

  /**
   * Waits until the type's watch cache has applied `revision`, an event of `path`: a watch from
   * just before it has then delivered it. Makes the cache-served cells ("Any") deterministic on
   * etcd, whose cache follows the store asynchronously.
   */
  async synced(path: string, revision: number): Promise<void> {
    const w = await this.watch(path, `resourceVersion=${revision - 1}`);
    await w.until((e) => rvOf(e.object) >= revision, `an event at ${revision}`);
    w.abort();
  }

  /** Asserts a request changed nothing: the store's revision did not move. */
  async unchanged(request: () => Promise<void>): Promise<void> {
    const before = await this.s.store.revision();
    await request();
    expect(await this.s.store.revision()).toBe(before);
  }

  closeStreams(): void {
    for (const w of this.streams) w.abort();
    this.streams.clear();
  }
}
