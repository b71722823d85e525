// The CRI wire helpers: a message value goes to protobufjs with its bigints as decimal strings and
// its undefined properties left out, copied only where it changes, so the caller's value is never
// altered; encoding and shaping give the decoder's shape back.
import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, messageType, shapeMessage } from '../../../src/nodeagent/cri/index.js';

type Shaped = { config: { labels: Record<string, string>; annotations: Record<string, string>; linux: { resources: { cpuQuota: bigint; memoryLimitInBytes: bigint } }; envs: { key: string; value: string }[] } };

const request = () => ({
  podSandboxId: 'sandbox',
  config: {
    metadata: { name: 'app', attempt: 0 },
    labels: { app: 'web', gone: undefined },
    annotations: {},
    envs: [{ key: 'A', value: '1' }],
    linux: { resources: { cpuQuota: 50_000n, memoryLimitInBytes: 2n ** 40n } },
  },
});

describe('CRI wire values', () => {
  it('shape bigints (nested) as bigints and drop undefined map values, leaving the given value as it was', () => {
    const given = request();
    const shaped = shapeMessage<Shaped>(messageType('CreateContainerRequest'), given);
    expect(shaped.config.labels).toEqual({ app: 'web' });
    expect(shaped.config.linux.resources.cpuQuota).toBe(50_000n);
    expect(shaped.config.linux.resources.memoryLimitInBytes).toBe(2n ** 40n);
    expect(shaped.config.envs).toEqual([{ key: 'A', value: '1' }]);
    expect(given).toEqual(request());
    expect(shaped.config.envs[0]).not.toBe(given.config.envs[0]);
  });

  it('encode what decodes to the same shape', () => {
    const type = messageType('CreateContainerRequest');
    const given = request();
    expect(decodeMessage<Shaped>(type, encodeMessage(type, given))).toEqual(shapeMessage<Shaped>(type, given));
    expect(given).toEqual(request());
  });
});
