/**
 * The node agent's HTTPS port keeps a TLS connection Node pauses open
 * (src/tls-connections/paused-tls-reads.ts): a client that asks for a large answer (a container's
 * log, here a route of the agent's own route modules), does not read it, and posts its next
 * request, larger than one TLS record, gets both answers on the same connection. Without the fix
 * the server closes the connection (HPE_PAUSED). No runtime is needed: the CRI client points at a
 * socket that does not exist.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { CriClient, startAgentServer, type AgentRouteModule, type RunningAgentServer } from '../../../src/nodeagent/index.js';
import { httpRequest, pipelineBehindUnreadAnswer, untilAnswerStuck } from '../../support/paused-tls.js';
import { agentFlags } from './support.js';

/** More than the loopback connection's kernel buffers hold unread. */
const ANSWER_BYTES = 16 * 1024 * 1024;
/** Three TLS records (16 KiB of plaintext each at most). */
const BODY_BYTES = 40_000;

const dir = mkdtempSync(join(tmpdir(), 'svc-agent-paused-tls-'));
const cri = new CriClient({ endpoint: `unix://${join(dir, 'no-runtime.sock')}`, timeoutMs: 2000 });
let server: RunningAgentServer | undefined;

afterAll(async () => {
  await server?.close();
  cri.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the node agent's HTTPS port, to a client that pipelines a request behind an answer it has not read", () => {
  it('answers both on the same connection', async () => {
    const answer = Buffer.alloc(ANSWER_BYTES, 'a');
    let socket: TLSSocket | undefined;
    // `/big` answers ANSWER_BYTES and tells which connection it answered on; `/length` answers the length of the body it read.
    const routes: AgentRouteModule = {
      name: 'paused-tls-reads',
      debugging: false,
      register(app) {
        app.get('/big', async (request, reply) => {
          socket = request.raw.socket as TLSSocket;
          return reply.type('application/octet-stream').send(answer);
        });
        app.post('/length', async (request, reply) => reply.type('text/plain').send(String((request.body as string).length)));
      },
    };
    server = await startAgentServer({ flags: agentFlags(dir), nodeName: 'node-1', cri, config: { nodeName: 'node-1', port: 10250 }, routes: [routes] });

    const { closed, answers } = await pipelineBehindUnreadAnswer({
      port: server.port,
      first: httpRequest('GET', '/big'),
      second: httpRequest('POST', '/length', { 'Content-Type': 'text/plain' }, Buffer.alloc(BODY_BYTES, 'b')),
      answerStuck: () => untilAnswerStuck(() => socket),
    });
    expect(closed).toBe(false);
    expect(answers.map((a) => [a.status, a.body.length])).toEqual([
      [200, ANSWER_BYTES],
      [200, String(BODY_BYTES).length],
    ]);
    expect(answers[1]!.body.toString()).toBe(String(BODY_BYTES));
  });
});
