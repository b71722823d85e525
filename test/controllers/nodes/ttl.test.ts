import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { NODE_TTL_ANNOTATION, ttlController, ttlStep, TTL_BOUNDARIES } from '../../../controllers/index.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';

const ttlAt = (count: number, from: number) => TTL_BOUNDARIES[ttlStep(count, from)]!.ttlSeconds;

describe('node TTL by cluster size', () => {
  it('steps up past each boundary and down below the next lower one (hysteresis)', () => {
    // Growing from the smallest step.
    const up = (count: number) => {
      let step = 0;
      for (let n = 1; n <= count; n++) step = ttlStep(n, step);
      return TTL_BOUNDARIES[step]!.ttlSeconds;
    };
    expect([0, 100, 101, 500, 501, 1000, 1001, 2000, 2001, 5000].map(up)).toEqual([0, 0, 15, 15, 30, 30, 60, 60, 300, 300]);
    // Shrinking: a step is left only below its min (90, 450, 900, 1800).
    expect(ttlAt(95, 1)).toBe(15);
    expect(ttlAt(89, 1)).toBe(0);
    expect(ttlAt(460, 2)).toBe(30);
    expect(ttlAt(449, 2)).toBe(15);
    expect(ttlAt(950, 3)).toBe(60);
    expect(ttlAt(899, 3)).toBe(30);
    expect(ttlAt(1800, 4)).toBe(300);
    expect(ttlAt(1799, 4)).toBe(60);
    // Far jumps move several steps at once.
    expect(ttlAt(3000, 0)).toBe(300);
    expect(ttlAt(10, 4)).toBe(0);
  });
});

describe('ttl controller', () => {
  let cluster: TestCluster;
  let loop: LoopHarness;

  beforeAll(async () => {
    cluster = await startTestCluster();
    loop = loopHarness(cluster.client);
    loop.run(ttlController(loop.ctx));
  });
  afterAll(async () => {
    loop.stop();
    await cluster.stop();
  });

  const annotations = async () => (await cluster.client.list(builtin.nodes)).items.map((n) => n.metadata.annotations?.[NODE_TTL_ANNOTATION]);

  it('annotates every node with 0 up to 100 nodes, 15 s from 101, and back to 0 below 90', async () => {
    const create = (i: number) => cluster.client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}` } });
    for (let i = 1; i <= 100; i++) await create(i);
    await eventually(async () => (await annotations()).every((a) => a === '0') && (await annotations()).length === 100, '100 nodes at 0');
    await create(101);
    await eventually(async () => (await annotations()).every((a) => a === '15'), '101 nodes at 15');
    // Down to 90: still 15 (the step's min); to 89: 0.
    for (let i = 101; i > 90; i--) await cluster.client.delete(builtin.nodes, `n${i}`);
    await eventually(async () => (await annotations()).length === 90, '90 nodes');
    expect((await annotations()).every((a) => a === '15')).toBe(true);
    await cluster.client.delete(builtin.nodes, 'n90');
    await eventually(async () => (await annotations()).every((a) => a === '0'), '89 nodes at 0');
  });
});
