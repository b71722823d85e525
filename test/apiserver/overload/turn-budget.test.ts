/**
 * The loop turn's budget of request starts (src/apiserver/turn-budget.ts): requests start at once
 * while the turn has time left; past it they wait, in arrival order, for a later turn's check
 * phase, where again at most the budget's worth starts (and always one). A clock of the test's
 * own decides "time left", so no assertion depends on how fast the machine is. Then a server with
 * a budget of 1 ms: a burst of writes is answered in full and a watch sees every one in order.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { TurnBudget } from '../../../src/apiserver/turn-budget.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';

describe('TurnBudget', () => {
  it('starts requests at once until the turn has used its budget, then in later turns in arrival order', async () => {
    let now = 0;
    const budget = new TurnBudget(10, () => now);
    const started: string[] = [];
    const start = (name: string, takesMs = 0) => () => {
      started.push(name);
      now += takesMs;
    };
    budget.run(start('a', 4));
    budget.run(start('b', 7)); // 4 ms used: starts, and takes the turn past its budget
    budget.run(start('c', 15)); // 11 ms used: waits
    budget.run(start('d'));
    expect(started).toEqual(['a', 'b']);
    expect(budget.waiting).toBe(2);

    await nextTurn();
    // The check phase's first start always runs; c alone spends that turn's budget.
    expect(started).toEqual(['a', 'b', 'c']);
    budget.run(start('e')); // a new turn with room, but d waits before it
    expect(started).toEqual(['a', 'b', 'c']);
    expect(budget.waiting).toBe(2);

    await nextTurn();
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(budget.waiting).toBe(0);

    // Nothing waits and a new turn began: a start runs at once again.
    await nextTurn();
    budget.run(start('f'));
    expect(started.at(-1)).toBe('f');
  });

  it('keeps arrival order over thousands of turns of a queue that never empties in between', async () => {
    let now = 0;
    const budget = new TurnBudget(10, () => now);
    const started: number[] = [];
    // Each start spends a whole turn's budget: one start per turn.
    const start = (i: number) => () => {
      started.push(i);
      now += 10;
    };
    budget.run(start(0));
    for (let i = 1; i <= 3000; i++) budget.run(start(i));
    expect(budget.waiting).toBe(3000);
    for (let turn = 1; turn <= 2000; turn++) await nextTurn();
    expect(budget.waiting).toBe(1000);
    // Arrivals while it is behind go to the back.
    for (let i = 3001; i <= 3010; i++) budget.run(start(i));
    while (budget.waiting > 0) await nextTurn();
    expect(started).toEqual(Array.from({ length: 3011 }, (_, i) => i));
  });

  it('with a budget of 0 starts everything at once', () => {
    let now = 0;
    const budget = new TurnBudget(0, () => now);
    const started: number[] = [];
    for (let i = 0; i < 5; i++)
      budget.run(() => {
        started.push(i);
        now += 100;
      });
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(budget.waiting).toBe(0);
  });
});

describe('a server whose turns start at most 1 ms of requests', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ['turns'], apiServer: { turnBudgetMs: 1 } });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('answers a burst of writes in full, and a watch opened before it sees each one, in revision order', async () => {
    const { client } = cluster;
    const before = await client.list(builtin.configMaps, { namespace: 'turns' });
    const names = Array.from({ length: 60 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
    const watched = new Promise<{ name: string; version: string }[]>((resolve) => {
      const seen: { name: string; version: string }[] = [];
      const sub = client.watch$(builtin.configMaps, { namespace: 'turns', resourceVersion: before.resourceVersion, emitBookmarks: false }).subscribe((e) => {
        if (e.type !== 'ADDED') return;
        seen.push({ name: e.object.metadata.name!, version: e.object.metadata.resourceVersion! });
        if (seen.length === names.length) {
          sub.unsubscribe();
          resolve(seen);
        }
      });
    });
    // All at once: far more than 1 ms of requests, so most start in later turns.
    const created = await Promise.all(names.map((name) => client.create(builtin.configMaps, { metadata: { name, namespace: 'turns' }, data: { k: name } }, { namespace: 'turns' })));
    expect(created.map((c) => c.metadata.name)).toEqual(names);
    const seen = await watched;
    expect(new Set(seen.map((e) => e.name))).toEqual(new Set(names));
    const versions = seen.map((e) => Number(e.version));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    const versionOf = new Map(created.map((c) => [c.metadata.name, c.metadata.resourceVersion]));
    for (const e of seen) expect(e.version).toBe(versionOf.get(e.name));
  });
});
