/**
 * The API server the fuzz suite attacks: svc-apiserver in-process (startApiServer: HTTPS, the
 * generated admin token, service-account JWTs, RBAC), and the rules every answer must keep. A
 * request that fails a rule throws a `FuzzFailure` naming the request, so fast-check shrinks it
 * and prints the smallest one with the seed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';

/** Runs per property: small in `npm test`, `SVC_FUZZ_RUNS=100000` for a long campaign. */
export const FUZZ_RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 40);
/** The seed every property starts from: a failure replays with the same one. */
export const FUZZ_SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261126);
/** Each property's test timeout: vitest's default, plus room for the runs asked for. */
export const PROPERTY_TIMEOUT_MS = 60_000 + FUZZ_RUNS * 250;
/** An answer later than this is a stall. */
const STALL_MS = 15_000;

export const NS = 'fuzz';

export interface FuzzRequest {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Leave out the admin token (the request brings its own Authorization, or none). */
  readonly noToken?: boolean;
}

export interface FuzzAnswer {
  readonly status: number;
  readonly body: unknown;
}

export class FuzzFailure extends Error {}

export interface FuzzTarget {
  readonly server: RunningApiServer;
  readonly dataDir: string;
  /** Sends one request as it is (streams cut after the headers); throws on a stall or a lost connection. */
  send(req: FuzzRequest): Promise<FuzzAnswer>;
  /**
   * Sends a batch of requests, checking each answer is a 2xx or a 4xx Status, each refusal
   * (and each dryRun=All success) left the store's revision as it was, and `/healthz` answers
   * after the batch. Counts requests and findings in `stats`.
   */
  batch(reqs: readonly FuzzRequest[]): Promise<void>;
  /** Requests tried, 5xx answers, stalls, in this process. */
  readonly stats: { requests: number; serverErrors: number; stalls: number };
  close(): Promise<void>;
}

const describe = (req: FuzzRequest) => {
  const body =
    req.body === undefined ? '' : typeof req.body === 'string' ? ` body ${JSON.stringify(req.body.slice(0, 2000))}` : ` body 0x${Buffer.from(req.body.subarray(0, 1000)).toString('hex')}`;
  return `${req.method} ${req.path} headers ${JSON.stringify(req.headers ?? {})}${body}`;
};

/** The Status every refusal must carry: Kubernetes' shape, the HTTP code repeated in it. */
function isStatusOf(code: number, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const status = body as Record<string, unknown>;
  return (
    status['kind'] === 'Status' &&
    status['apiVersion'] === 'v1' &&
    status['status'] === 'Failure' &&
    status['code'] === code &&
    typeof status['message'] === 'string' &&
    typeof status['reason'] === 'string'
  );
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
  const server = await startApiServer({
    dataDir,
    storage: 'memory',
    bindAddress: '127.0.0.1',
    securePort: 0,
    featureGates: { CBORServingAndStorage: true },
  });
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const dispatcher = new Agent({ connect: { ca }, headersTimeout: STALL_MS, bodyTimeout: STALL_MS, connections: 8 });
  const stats = { requests: 0, serverErrors: 0, stalls: 0 };

  async function send(req: FuzzRequest): Promise<FuzzAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (!req.noToken) headers['authorization'] = `Bearer ${server.adminToken}`;
    let res;
    try {
      // Origin and path apart: a URL would resolve `.` and `..` segments before sending.
      res = await dispatcher.request({
        origin: server.url,
        path: req.path,
        method: req.method as 'GET',
        headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT') stats.stalls++;
      throw new FuzzFailure(`no answer (${code ?? (error as Error).message}) to ${describe(req)}`);
    }
    const streaming = /[?&]watch=/i.test(req.path) && res.statusCode < 300;
    if (streaming) {
      // An accepted watch streams until its timeout: the headers are the answer.
      res.body.once('error', () => {}); // the abort we cause
      res.body.destroy();
      return { status: res.statusCode, body: undefined };
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'UND_ERR_BODY_TIMEOUT') stats.stalls++;
      throw new FuzzFailure(`the answer's body never ended (${code ?? (error as Error).message}) for ${describe(req)}`);
    }
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text (a 2xx in YAML, CBOR or protobuf)
    }
    return { status: res.statusCode, body };
  }

  /** The store's revision: a list's resourceVersion is the revision it was read at. */
  async function revision(): Promise<string> {
    const answer = await send({ method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps?limit=1` });
    const rv = (answer.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    if (answer.status !== 200 || rv === undefined) throw new FuzzFailure(`the revision probe failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return rv;
  }

  async function batch(reqs: readonly FuzzRequest[]): Promise<void> {
    let before = await revision();
    for (const req of reqs) {
      stats.requests++;
      const answer = await send(req);
      const after = await revision();
      if (answer.status >= 500) stats.serverErrors++;
      if (answer.status >= 200 && answer.status < 300) {
        if (/[?&]dryRun=All(&|$)/.test(req.path) && after !== before)
          throw new FuzzFailure(`dry run changed the store (revision ${before} → ${after}): ${describe(req)}`);
      } else if (answer.status >= 400 && answer.status < 500) {
        if (!isStatusOf(answer.status, answer.body))
          throw new FuzzFailure(`${answer.status} without a Status (${JSON.stringify(answer.body).slice(0, 500)}) for ${describe(req)}`);
        if (after !== before) throw new FuzzFailure(`a refused request (${answer.status}) changed the store (revision ${before} → ${after}): ${describe(req)}`);
      } else {
        throw new FuzzFailure(`${answer.status} ${JSON.stringify(answer.body).slice(0, 500)} for ${describe(req)}`);
      }
      before = after;
    }
    const health = await send({ method: 'GET', path: '/healthz' });
    if (health.status !== 200) throw new FuzzFailure(`/healthz answered ${health.status} after the batch`);
  }

  return {
    server,
    dataDir,
    send,
    batch,
    stats,
    async close() {
      await dispatcher.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
