import { Agent, request } from 'undici';
import type { WebhookTarget } from './endpoint.js';
import { WebhookUnreachable } from './endpoint.js';

/** The largest webhook reply read (as kube-apiserver bounds request bodies); more is a failed call. */
export const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;
const MAX_AGENTS = 64;

/**
 * HTTPS connections to webhooks, one pool per trust setting (CA bundle and server name), so a
 * webhook's connections are reused across requests. Bounded: the oldest pool is closed when a
 * 65th appears.
 */
export class WebhookClient {
  readonly #agents = new Map<string, Agent>();

  /**
   * POSTs `body` and returns the reply's text. Fails (WebhookUnreachable) on a connection error, a
   * non-200 status, a reply larger than MAX_RESPONSE_BYTES, or when `timeoutMs` passes first.
   */
  async post(target: WebhookTarget, caBundle: string | undefined, body: string, timeoutMs: number): Promise<string> {
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(target.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        dispatcher: this.agent(caBundle, target.servername),
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      throw new WebhookUnreachable(`Post "${target.url}": ${signal.aborted ? 'context deadline exceeded' : describe(error)}`);
    }
    // The timeout's abort may reach a body already given up on: that is not an error of anyone's.
    response.body.on('error', () => undefined);
    try {
      if (response.statusCode !== 200) {
        throw new WebhookUnreachable(`the server responded with status ${response.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) throw new WebhookUnreachable(`the response is larger than ${MAX_RESPONSE_BYTES} bytes`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      if (error instanceof WebhookUnreachable) throw error;
      throw new WebhookUnreachable(`Post "${target.url}": ${signal.aborted ? 'context deadline exceeded' : describe(error)}`);
    } finally {
      // An unread or partly read body would hold its connection.
      response.body.destroy();
    }
  }

  close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    return Promise.all(agents.map((a) => a.close())).then(() => undefined);
  }

  private agent(caBundle: string | undefined, servername: string | undefined): Agent {
    const key = `${caBundle ?? ''}\n${servername ?? ''}`;
    let agent = this.#agents.get(key);
    if (agent) return agent;
    // Without a caBundle the system's roots verify the webhook, as Kubernetes does.
    const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
    agent = new Agent({ connect: { ...(ca ? { ca } : {}), ...(servername ? { servername } : {}) } });
    this.#agents.set(key, agent);
    if (this.#agents.size > MAX_AGENTS) {
      const [oldest, pool] = this.#agents.entries().next().value as [string, Agent];
      this.#agents.delete(oldest);
      void pool.close();
    }
    return agent;
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string } }).cause;
  const text = error instanceof Error ? error.message : String(error);
  return cause?.message ? `${text}: ${cause.message}` : text;
}
