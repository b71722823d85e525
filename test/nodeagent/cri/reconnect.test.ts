/**
 * A CRI client whose connect failed connects again as soon as its reconnect backoff says, every
 * time: `svc up` and the tests poll a containerd they have just spawned, and with gRPC's default
 * backoff (1 s, growing) every poll in the second after a refused connect failed without trying,
 * so each containerd start took ~1 s longer than containerd did (docs/testing.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CriClient, GrpcStatus } from '../../../src/nodeagent/index.js';

const dir = mkdtempSync('/tmp/svc-cri-reconnect-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A socket that takes each connection and closes it at once, as a runtime not yet serving; counts them. */
async function refusingSocket(path: string): Promise<{ server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { server, connections: () => connections };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('CriClient reconnectBackoffMs', () => {
  it('connects again within the same short backoff after every refused connect', async () => {
    const path = join(dir, 'runtime.sock');
    const { server, connections } = await refusingSocket(path);
    const backoffMs = 20;
    const cri = new CriClient({ endpoint: `unix://${path}`, timeoutMs: 10_000, reconnectBackoffMs: backoffMs });
    try {
      const calls = 16;
      for (let i = 0; i < calls; i++) {
        await expect(cri.version()).rejects.toMatchObject({ grpcCode: GrpcStatus.UNAVAILABLE });
        // The backoff's timer (at most 1.2 × backoffMs, gRPC's jitter) was set when the connect
        // failed, before this sleep's: it has fired when the next call is made.
        await sleep(3 * backoffMs);
      }
      // A connection tried for every call at least (gRPC also tries on its own when the backoff
      // ends). gRPC's default backoff (1 s, then 1.6 s, 2.6 s) makes one or two in these ~1 s; a
      // backoff of 20 ms that grew 1.6-fold, as gRPC's does, ~9 (12 if load tripled the time).
      expect(connections()).toBeGreaterThanOrEqual(calls);
    } finally {
      cri.close();
      server.close();
    }
  });
});
