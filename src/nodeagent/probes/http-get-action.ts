import http from 'node:http';
import https from 'node:https';
import type { Container } from '../../api/index.js';
import type { HttpGetAction } from './actions.js';
import { hostPort, resolveHost, resolvePort } from './port.js';
import type { ActionOutcome } from './target.js';

/** The kubelet's probe User-Agent: servers that special-case it see the same string. */
export const PROBE_USER_AGENT = 'kube-probe/1.32';
/** Body bytes read at most: enough for a message, never a large download on every period. */
export const MAX_BODY_BYTES = 10 * 1024;
/** Redirects followed at most, as Go's HTTP client. */
export const MAX_REDIRECTS = 10;

export interface HttpGetOptions {
  readonly signal?: AbortSignal | undefined;
}

interface Response {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
}

/** The URL and headers an httpGet action asks for. */
export function httpGetRequest(action: HttpGetAction, container: Container, podIP: string | undefined): { url: URL; headers: Record<string, string> } {
  const scheme = action.scheme === 'HTTPS' ? 'https' : 'http';
  const host = resolveHost(action.host, podIP);
  const port = resolvePort(action.port, container);
  let path = action.path ?? '/';
  if (!path.startsWith('/')) path = `/${path}`;
  const url = new URL(`${scheme}://${hostPort(host, port)}${path}`);
  const headers: Record<string, string> = { 'user-agent': PROBE_USER_AGENT, accept: '*/*' };
  // A header of the pod's replaces ours (User-Agent, Accept, Host included); repeated names join.
  const given = new Map<string, string[]>();
  for (const { name, value } of action.httpHeaders ?? []) {
    const key = name.toLowerCase();
    given.set(key, [...(given.get(key) ?? []), value]);
  }
  for (const [key, values] of given) headers[key] = values.join(', ');
  return { url, headers };
}

/**
 * GETs the action's URL: a status of 200–399 is success, any other failure. HTTPS certificates are
 * not verified (a pod's serving certificate is rarely for its IP). Redirects to the same host name
 * are followed; one to another host ends the probe as success, like the kubelet's "probe
 * terminated redirects" warning. At most MAX_BODY_BYTES of a body are read.
 */
export async function runHttpGetAction(action: HttpGetAction, container: Container, podIP: string | undefined, options: HttpGetOptions = {}): Promise<ActionOutcome> {
  const { url: first, headers } = httpGetRequest(action, container, podIP);
  let url = first;
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      response = await get(url, headers, options.signal);
    } catch (error) {
      return { result: 'failure', message: `Get "${url.href}": ${error instanceof Error ? error.message : String(error)}` };
    }
    const next = response.status >= 300 && response.status < 400 && response.location ? new URL(response.location, url) : undefined;
    if (next && next.hostname !== first.hostname) {
      return { result: 'success', message: `Probe terminated redirects, Response body: ${response.body}` };
    }
    if (next && (next.protocol === 'http:' || next.protocol === 'https:')) {
      if (redirects >= MAX_REDIRECTS) return { result: 'failure', message: `Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects` };
      url = next;
      continue;
    }
    if (response.status >= 200 && response.status < 400) return { result: 'success', message: response.body };
    return { result: 'failure', message: `HTTP probe failed with statuscode: ${response.status}` };
  }
}

function get(url: URL, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const options: https.RequestOptions = { method: 'GET', headers, agent: false, rejectUnauthorized: false, ...(signal ? { signal } : {}) };
    const request = (url.protocol === 'https:' ? https : http).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        res.destroy();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8') });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY_BYTES) done();
      });
      res.once('end', done);
      res.once('error', reject);
    });
    request.once('error', reject);
    request.end();
  });
}
