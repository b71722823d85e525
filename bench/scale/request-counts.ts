// The API server's requests by `verb resource[/subresource]` (its apiserver_request_total, summed
// over the other labels), and the per-minute rate between two reads: what a scale run asked of it.
import { request, type Dispatcher } from 'undici';

export type RequestCounts = Map<string, number>;

export async function requestCounts(server: string, token: string | undefined, dispatcher: Dispatcher): Promise<RequestCounts> {
  return (await serverCounts(server, token, dispatcher)).requests;
}

/**
 * The requests (as `requestCounts`) and the store's operations by `operation type` (its
 * etcd_request_duration_seconds_count: every store call the server made, whichever store), from
 * one scrape: what each request cost the store (a write that read before writing, or wrote twice).
 */
export async function serverCounts(server: string, token: string | undefined, dispatcher: Dispatcher): Promise<{ requests: RequestCounts; storage: RequestCounts }> {
  const res = await request(new URL('/metrics', server), { dispatcher, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const out: RequestCounts = new Map();
  const storage: RequestCounts = new Map();
  for (const line of (await res.body.text()).split('\n')) {
    if (line.startsWith('etcd_request_duration_seconds_count{')) {
      const key = `${/operation="([^"]+)"/.exec(line)?.[1] ?? '?'} ${/type="([^"]*)"/.exec(line)?.[1] ?? ''}`;
      storage.set(key, (storage.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
    if (!line.startsWith('apiserver_request_total{')) continue;
    const sub = /subresource="([^"]+)"/.exec(line)?.[1];
    const key = `${/verb="([^"]+)"/.exec(line)?.[1] ?? '?'} ${/resource="([^"]*)"/.exec(line)?.[1] ?? ''}${sub ? `/${sub}` : ''}`;
    out.set(key, (out.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return { requests: out, storage };
}

/** Requests per minute between two reads `minutes` apart, largest first, zeros left out. */
export function perMinute(before: RequestCounts, after: RequestCounts, minutes: number): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([key, n]) => [key, Math.round((n - (before.get(key) ?? 0)) / minutes)] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}

/** Requests per unit of work (a pod) between two reads, two decimals, largest first; below 0.01 left out. */
export function perPod(before: RequestCounts, after: RequestCounts, pods: number): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([key, n]) => [key, Number(((n - (before.get(key) ?? 0)) / pods).toFixed(2))] as const)
      .filter(([, n]) => n >= 0.01)
      .sort((a, b) => b[1] - a[1]),
  );
}
