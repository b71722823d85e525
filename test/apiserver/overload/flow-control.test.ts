import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized } from '../../../src/api/index.js';
import { buildApp, type UserInfo } from '../../../src/apiserver/index.js';
import { parseAuditPolicy, type AuditEvent } from '../../../src/apiserver/audit/index.js';
import { MemoryStore } from '../../../src/storage/index.js';

const USERS: Record<string, UserInfo> = {
  'flooder-token': { name: 'flooder', uid: 'u-f', groups: ['system:authenticated'] },
  'other-token': { name: 'other', uid: 'u-o', groups: ['system:authenticated'] },
  'admin-token': { name: 'admin', uid: 'u-a', groups: ['system:masters', 'system:authenticated'] },
};
const CM = '/api/v1/namespaces/default/configmaps';

/** A list that holds its seat until the server gives up waiting for a resourceVersion it never reaches (504). */
const SLOW_WAIT_MS = 1000;

interface Answer {
  readonly who: string;
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: { kind?: string; reason?: string; code?: number };
}

describe('flow control: one client flooding lists does not starve another', () => {
  let app: FastifyInstance;
  let url: string;
  const store = new MemoryStore();
  /** Every answer in the order it arrived. */
  const arrived: Answer[] = [];
  /** The audit events of the flooder's lists. */
  const audited: AuditEvent[] = [];

  const call = async (who: string, token: string, path: string, init: RequestInit = {}): Promise<Answer> => {
    const res = await fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const text = await res.text();
    const answer = { who, status: res.status, retryAfter: res.headers.get('retry-after'), body: text.startsWith('{') ? (JSON.parse(text) as Answer['body']) : {} };
    arrived.push(answer);
    return answer;
  };

  beforeAll(async () => {
    app = await buildApp({
      store,
      authorization: ['AlwaysAllow'],
      authenticate: (headers) => {
        const auth = headers['authorization'];
        if (auth === undefined) return undefined;
        const user = typeof auth === 'string' ? USERS[auth.replace('Bearer ', '')] : undefined;
        if (!user) throw unauthorized('Unauthorized');
        return user;
      },
      tooLargeResourceVersionWaitMs: SLOW_WAIT_MS,
      flowControl: { maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, queueLengthPerFlow: 3 },
      audit: {
        policy: parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, users: [flooder], verbs: [list]}]'),
        sink: { write: (line) => void audited.push(JSON.parse(line) as AuditEvent) },
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no TCP address');
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('queues and refuses the flooder, and serves the other client next, ahead of the flooder\'s queue', async () => {
    const created = await call('admin', 'admin-token', CM, { method: 'POST', body: JSON.stringify({ metadata: { name: 'target' } }) });
    expect(created.status).toBe(201);
    const target = await call('admin', 'admin-token', `${CM}/target`);
    const rv = Number((target.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion);
    const slowList = `${CM}?resourceVersion=${rv + 1_000_000}&resourceVersionMatch=NotOlderThan`;
    arrived.length = 0;

    // 12 lists at once: 2 take the seats, 3 wait in the flooder's queue, 7 are refused.
    const flood = Array.from({ length: 12 }, () => call('flooder', 'flooder-token', slowList));
    await until(() => arrived.filter((a) => a.status === 429).length === 7);

    // While the flood holds every read-only seat: members of system:masters and the health checks
    // are exempt, and mutating requests have seats of their own.
    expect((await call('admin', 'admin-token', `${CM}/target`)).status).toBe(200);
    expect((await call('health', 'other-token', '/healthz')).status).toBe(200);
    expect((await call('flooder-write', 'flooder-token', CM, { method: 'POST', body: JSON.stringify({ metadata: { name: 'written' } }) })).status).toBe(201);
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer admin-token' } })).text();
    expect(metrics).toMatch(/^apiserver_current_inflight_requests\{request_kind="readOnly"\} 2$/m);
    expect(metrics).toMatch(/^apiserver_flowcontrol_rejected_requests_total\{priority_level="readOnly",flow_schema="per-user",reason="queue-full"\} 7$/m);

    // The other client's GET waits for a seat, and gets the second one that frees.
    const other = await call('other', 'other-token', `${CM}/target`);
    expect(other.status).toBe(200);
    const answers = await Promise.all(flood);

    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(7);
    for (const a of refused) {
      expect(a.retryAfter).toBe('1');
      expect(a.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
    }
    // Every flooder list that got a seat was served (its answer is the store's 504 Timeout).
    expect(answers.filter((a) => a.status === 504)).toHaveLength(5);
    // Of the flooder's lists, only those that held the seats when the other client came finished
    // before it: the three it had queued finished after.
    const order = arrived.map((a) => a.who + ':' + a.status);
    const otherAt = order.indexOf('other:200');
    expect(order.slice(otherAt + 1).filter((a) => a === 'flooder:504')).toHaveLength(3);

    // The audit log has each refusal, once, at its last stage, with the user and the Status.
    const refusals = audited.filter((e) => e.responseStatus?.code === 429);
    expect(refusals).toHaveLength(7);
    for (const e of refusals) expect(e).toMatchObject({ stage: 'ResponseComplete', user: { username: 'flooder' }, responseStatus: { reason: 'TooManyRequests' } });
    // The served ones were logged when they got their seat and when they ended.
    expect(audited.filter((e) => e.responseStatus?.code === 504).map((e) => e.stage)).toEqual(Array(5).fill('ResponseComplete'));
    expect(audited.filter((e) => e.stage === 'RequestReceived')).toHaveLength(5);
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
