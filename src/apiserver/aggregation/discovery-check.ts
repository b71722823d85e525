import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { identityHeaders, type ProxyTarget } from './proxy.js';

/** The user the availability checks are made as (kube-aggregator's name for itself). */
export const AGGREGATOR_USER = { name: 'system:kube-aggregator', uid: '', groups: ['system:authenticated'] } as const;

/** A discovery document is small; a remote sending more is not a discovery endpoint. */
const MAX_DISCOVERY_BYTES = 4 * 1024 * 1024;

/** What the remote's `/apis/<group>/<version>` said: its APIResourceList, or why it failed. */
export type DiscoveryResult = { readonly ok: true; readonly document: unknown } | { readonly ok: false; readonly message: string };

/**
 * The discovery check of kube-aggregator's availability controller: GET
 * `/apis/<group>/<version>` on one endpoint, within `timeoutMs`; a 2xx answer means the
 * group-version is available. The document it answers is kept for discovery.
 */
export function checkDiscovery(target: ProxyTarget, timeoutMs: number): Promise<DiscoveryResult> {
  const path = `/apis/${target.remote.group}/${target.remote.version}`;
  const url = `https://${target.host}:${target.port}${path}`;
  const failed = (why: string): DiscoveryResult => ({ ok: false, message: `failing or missing response from ${url}: ${why}` });
  return new Promise((resolve) => {
    const read = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DISCOVERY_BYTES) res.destroy(new Error(`discovery document over ${MAX_DISCOVERY_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', (error) => resolve(failed(error.message)));
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code >= 300) return resolve(failed(`bad status from ${url}: ${code}`));
        try {
          resolve({ ok: true, document: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        } catch {
          resolve({ ok: true, document: undefined });
        }
      });
    };
    let req: ClientRequest;
    // TLS options OpenSSL refuses throw here rather than emit 'error'.
    try {
      req = httpsRequest(
        {
          ...target.remote.tls,
          host: target.host,
          port: target.port,
          method: 'GET',
          path,
          headers: { accept: 'application/json', ...identityHeaders(AGGREGATOR_USER) },
          agent: target.remote.agent,
          timeout: timeoutMs,
        },
        read,
      );
    } catch (error) {
      return resolve(failed((error as Error).message));
    }
    req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', (error) => resolve(failed(error.message)));
    req.end();
  });
}
