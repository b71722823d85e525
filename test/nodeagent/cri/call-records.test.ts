import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient, GrpcStatus, type CriCallRecord } from '../../../src/nodeagent/index.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';

let containerd: RunningContainerd;
beforeAll(async () => {
  containerd = await startContainerd({ importImages: false });
}, 60_000);
afterAll(async () => {
  await containerd?.stop();
});

describe('CriClient onCall', () => {
  it('reports every settled call with its method, start, duration and error', async () => {
    const calls: CriCallRecord[] = [];
    const cri = new CriClient({ endpoint: containerd.endpoint, onCall: (call) => calls.push(call) });
    try {
      const before = performance.now();
      await cri.version();
      await expect(cri.containerStatus({ containerId: 'no-such-container' })).rejects.toThrow();
      expect(calls.map((c) => c.method)).toEqual(['RuntimeService/Version', 'RuntimeService/ContainerStatus']);
      expect(calls[0]!.error).toBeUndefined();
      expect(calls[1]!.error?.grpcCode).toBe(GrpcStatus.NOT_FOUND);
      for (const call of calls) {
        expect(call.startedAt).toBeGreaterThanOrEqual(before);
        expect(call.durationMs).toBeGreaterThanOrEqual(0);
      }
    } finally {
      cri.close();
    }
  });
});
