import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki } from '../../../src/pki/index.js';

/** One AdmissionReview request as a webhook received it. */
export interface ReceivedReview {
  readonly path: string;
  readonly review: any;
}

/** What a scripted webhook answers: a response object (the `response` of the review), raw text, or nothing (hang). */
export type WebhookReply =
  | { readonly response: Record<string, unknown>; readonly envelope?: Record<string, unknown> }
  | { readonly raw: string; readonly status?: number }
  | { readonly hang: true };

export type WebhookScript = (review: any) => WebhookReply;

/** The name a service-referenced webhook's certificate carries (`<service>.<namespace>.svc`). */
export const SERVICE_DNS_NAME = 'hooks.webhooks.svc';

/**
 * A real HTTPS admission webhook for tests: its own CA (handed to configurations as caBundle),
 * one scripted answer per path, and a log of every review received.
 */
export interface WebhookServer {
  readonly url: string;
  readonly port: number;
  /** base64 PEM of the CA, as `clientConfig.caBundle` wants it. */
  readonly caBundle: string;
  readonly received: ReceivedReview[];
  /** Sets the answer for `path` (default: allow). */
  on(path: string, script: WebhookScript): void;
  /** Reviews received at `path`. */
  at(path: string): any[];
  close(): Promise<void>;
}

export const allow = (review: any): WebhookReply => ({ response: { uid: review.request.uid, allowed: true } });

export const patchReply = (review: any, operations: unknown[], extra: Record<string, unknown> = {}): WebhookReply => ({
  response: { uid: review.request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64'), ...extra },
});

export async function startWebhookServer(): Promise<WebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-'));
  const pki = await ensurePki(dir, { dns: ['localhost', SERVICE_DNS_NAME], ips: ['127.0.0.1'] });
  const scripts = new Map<string, WebhookScript>();
  const received: ReceivedReview[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({ path, review });
      const reply = (scripts.get(path) ?? allow)(review);
      if ('hang' in reply) return void hanging.add(res);
      if ('raw' in reply) return void res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(reply.raw);
      const body = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', ...(reply.envelope ?? {}), response: reply.response };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(pki.caPem!).toString('base64'),
    received,
    on: (path, script) => void scripts.set(path, script),
    at: (path) => received.filter((r) => r.path === path).map((r) => r.review),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
