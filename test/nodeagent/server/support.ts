/** Helpers of the agent server suites: its flags, HTTPS calls with any credentials, free ports. */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { AgentServerFlags } from '../../../src/nodeagent/index.js';

export function agentFlags(dir: string, overrides: Partial<AgentServerFlags> = {}): AgentServerFlags {
  return {
    address: '127.0.0.1',
    port: 0,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 0,
    enableDebuggingHandlers: true,
    streamingConnectionIdleTimeout: 4 * 3_600_000,
    tlsCipherSuites: [],
    certDir: join(dir, 'pki'),
    anonymousAuth: true,
    authenticationTokenWebhook: false,
    authenticationTokenWebhookCacheTtl: 120_000,
    authorizationMode: 'AlwaysAllow',
    authorizationWebhookCacheAuthorizedTtl: 300_000,
    authorizationWebhookCacheUnauthorizedTtl: 30_000,
    rootDir: dir,
    ...overrides,
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface CallOptions {
  method?: string;
  token?: string;
  cert?: string;
  key?: string;
  /** Trust this CA (PEM); default: accept any certificate. */
  ca?: string;
  body?: string;
  headers?: Record<string, string>;
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One HTTPS request (or HTTP with `plain`), the whole answer read. */
export function call(port: number, path: string, options: CallOptions = {}, plain = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    const common = { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers, agent: false as const };
    const req = plain
      ? httpRequest(common)
      : httpsRequest({
          ...common,
          ...(options.ca ? { ca: options.ca, servername: 'localhost' } : { rejectUnauthorized: false }),
          ...(options.cert ? { cert: options.cert, key: options.key } : {}),
          ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
        });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A port nothing listens on right now, outside the ephemeral range (test/support/free-port.ts). */
export { freePort } from '../../support/free-port.js';

import { WebSocketServer } from 'ws';
import { badRequest } from '../../../src/api/index.js';
import { upgradeOf, type AgentRouteModule } from '../../../src/nodeagent/index.js';

/**
 * A WebSocket echo served on the agent at `paths` (a stand-in for the streaming routes): it first
 * sends the request's URL and the user it was authenticated as, then echoes every message.
 */
export function echoRoutes(paths: readonly string[], debugging = true): AgentRouteModule {
  return {
    name: 'echo',
    debugging,
    register(app) {
      const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => [...protocols][0] ?? false });
      app.addHook('onClose', async () => wss.close());
      for (const path of paths) {
        app.get(path, async (request, reply) => {
          const upgrade = upgradeOf(request);
          if (!upgrade) throw badRequest('Upgrade request required');
          reply.hijack();
          wss.handleUpgrade(request.raw, upgrade.socket, upgrade.head, (ws) => {
            ws.send(JSON.stringify({ url: request.url, protocol: ws.protocol }));
            ws.on('message', (data) => ws.send(data));
          });
        });
      }
    },
  };
}
