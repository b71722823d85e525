/**
 * A daemon's secure port (src/serving: the controller manager's, the scheduler's) keeps a TLS
 * connection Node pauses open (src/tls-connections/paused-tls-reads.ts): a client that asks for a
 * large answer, does not read it, and sends its next request, larger than one TLS record, gets
 * both answers on the same connection — over HTTPS alone and over the HTTP/2 server's HTTP/1.1
 * fallback (the default). Without the fix the server closes the connection (HPE_PAUSED).
 *
 * The second answer is not ready in the turn its request arrives (the metrics are collected
 * asynchronously, as an answer behind a TokenReview is): an answer queued at once would resume the
 * connection Node just paused (its `updateOutgoingData`) before the pause reached the parser.
 */
import type { TLSSocket } from 'node:tls';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../src/encoding/index.js';
import { RequestAuth, startServing, type Serving } from '../../src/serving/index.js';
import { http2Get } from '../support/http2-get.js';
import { httpRequest, pipelineBehindUnreadAnswer, untilAnswerStuck } from '../support/paused-tls.js';

/** More than the loopback connection's kernel buffers hold unread. */
const ANSWER_BYTES = 16 * 1024 * 1024;
/** Three TLS records (16 KiB of plaintext each at most). */
const BODY_BYTES = 40_000;
const METRICS = '# TYPE up gauge\nup 1\n';

let serving: Serving | undefined;
afterEach(async () => {
  await serving?.close();
  serving = undefined;
});

/** A secure port with a stream at `/big` that answers ANSWER_BYTES; `socket()` is the connection it answered on. */
async function start(http2: boolean): Promise<{ serving: Serving; socket: () => TLSSocket | undefined }> {
  const now = Date.now();
  const answer = Buffer.alloc(ANSWER_BYTES, 'a');
  let socket: TLSSocket | undefined;
  serving = await startServing({
    bindAddress: '127.0.0.1',
    port: 0,
    tls: selfSignedCertificate({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'], notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) }),
    http2,
    auth: new RequestAuth({ alwaysAllowPaths: ['/big', '/healthz', '/metrics'] }),
    health: { livez: new Map(), healthz: new Map(), readyz: new Map() },
    profiling: false,
    metrics: async () => {
      await nextTurn();
      return { body: METRICS, contentType: 'text/plain; version=0.0.4; charset=utf-8' };
    },
    streams: new Map([
      [
        '/big',
        (res) => {
          socket = res.socket as TLSSocket;
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(answer.length) });
          res.end(answer);
        },
      ],
    ]),
  });
  return { serving, socket: () => socket };
}

describe("a daemon's secure port, to a client that pipelines a request behind an answer it has not read", () => {
  it.each([
    ['HTTPS', false],
    ['HTTP/1.1 on the HTTP/2 server', true],
  ])('answers both on the same connection (%s)', async (_name, http2) => {
    const { serving, socket } = await start(http2);
    const { closed, answers } = await pipelineBehindUnreadAnswer({
      port: serving.port,
      first: httpRequest('GET', '/big'),
      // A GET with a body: the secure port answers only GET and HEAD, and Node reads and drops the body.
      second: httpRequest('GET', '/metrics', {}, Buffer.alloc(BODY_BYTES, 'b')),
      answerStuck: () => untilAnswerStuck(socket),
    });
    expect(closed).toBe(false);
    expect(answers.map((answer) => [answer.status, answer.body.length])).toEqual([
      [200, ANSWER_BYTES],
      [200, METRICS.length],
    ]);
    expect(answers[1]!.body.toString()).toBe(METRICS);
  });

  it('still serves HTTP/2 connections, which it leaves to their session', async () => {
    const { serving } = await start(true);
    expect((await http2Get(serving.url, '/healthz', { rejectUnauthorized: false })).body).toBe('ok');
  });
});
