// Issue #21: a controller restarted over owned objects already at their desired state writes
// nothing (bench:controller-restart measures the same at 10,000 objects). And it does write
// what changed while it was away: the zero is not a controller that does nothing.
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Informer, type Client } from '../../src/client/index.js';
import type { ControllerResult } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { mirroredData, MIRROR_LABEL, secretMirror, type MirrorSecret, type SourceConfigMap } from '../../bench/controllers/secret-mirror.js';
import { until } from '../client/support.js';

const NS = 'restart';
const OBJECTS = 200;

interface Run {
  readonly results: ControllerResult[];
  readonly reconciled: Set<string>;
  readonly secrets: Informer<MirrorSecret>;
  stop(): void;
}

function startMirror(client: Client): Run {
  const configMaps = new Informer<SourceConfigMap>(client, builtin.configMaps, { namespace: NS, labelSelector: MIRROR_LABEL });
  const secrets = new Informer<MirrorSecret>(client, builtin.secrets, { namespace: NS });
  const results: ControllerResult[] = [];
  const reconciled = new Set<string>();
  const subscription: Subscription = secretMirror({ configMaps, secrets, client }).subscribe((r) => {
    results.push(r);
    reconciled.add(r.key);
  });
  return {
    results,
    reconciled,
    secrets,
    stop() {
      subscription.unsubscribe();
      configMaps.stop();
      secrets.stop();
    },
  };
}

describe(`a controller restarted over ${OBJECTS} owned objects at their desired state`, () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: [NS] });
    for (let i = 0; i < OBJECTS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          cluster.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}`, namespace: NS, labels: { mirror: 'source' } }, data: { n: String(i + j) } }),
        ),
      );
    }
    // The first run brings every ConfigMap its Secret.
    const first = startMirror(cluster.newClient({ userAgent: 'first-run' }));
    try {
      await until(() => first.secrets.store.size === OBJECTS && first.reconciled.size === OBJECTS, `${OBJECTS} Secrets`);
    } finally {
      first.stop();
    }
    expect(cluster.writes('first-run')).toBe(OBJECTS);
  });
  afterAll(() => cluster.stop());

  it('reconciles every key and writes nothing', async () => {
    const before = await cluster.store.revision();
    const restarted = startMirror(cluster.newClient({ userAgent: 'restarted' }));
    try {
      await until(() => restarted.reconciled.size === OBJECTS, 'every key reconciled after the restart');
      expect(restarted.results.filter((r) => r.type !== 'awaitChange')).toEqual([]);
      expect(cluster.writes('restarted')).toBe(0);
      expect(await cluster.store.revision()).toBe(before);
    } finally {
      restarted.stop();
    }
  });

  it('writes exactly what changed while it was away', async () => {
    await cluster.client.patch(builtin.configMaps, 'cm-7', { data: { n: 'changed' } }, { namespace: NS });
    await cluster.client.delete(builtin.secrets, 'cm-8', { namespace: NS });
    const again = startMirror(cluster.newClient({ userAgent: 'after-changes' }));
    try {
      await until(() => again.reconciled.size === OBJECTS && again.secrets.store.get(`${NS}/cm-8`) !== undefined, 'every key reconciled, cm-8 given its Secret again');
      await until(() => again.secrets.store.get(`${NS}/cm-7`)?.data?.['n'] === mirroredData({ metadata: {}, data: { n: 'changed' } })['n'], 'cm-7 mirrored');
      expect(cluster.writes('after-changes')).toBe(2);
    } finally {
      again.stop();
    }
  });
});
