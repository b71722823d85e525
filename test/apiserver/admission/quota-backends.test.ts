import { describe, expect, it } from 'vitest';
import { startTestServer, type BackendName } from '../harness.js';

/**
 * Quota charges are compare-and-swap writes to the ResourceQuota: on every backend, of many
 * concurrent creates only as many as the quota allows get through.
 */
describe.each<BackendName>(['sqlite', 'etcd'])('ResourceQuota on the %s store', (backend) => {
  it('lets no more concurrent creates through than the quota allows', async () => {
    const s = await startTestServer(backend);
    try {
      await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'race' } });
      await s.call('POST', '/api/v1/namespaces/race/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'count/configmaps': '4' } } });
      // Admission reads quotas from the watch cache: wait until it holds this one (a list at resourceVersion 0 is served from it).
      await expect.poll(async () => (await s.call('GET', '/api/v1/namespaces/race/resourcequotas?resourceVersion=0')).body.items).toHaveLength(1);
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => s.call('POST', '/api/v1/namespaces/race/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(4);
      expect(results.filter((r) => r.status === 403).map((r) => r.body.reason)).toEqual(Array(12).fill('Forbidden'));
      expect((await s.call('GET', '/api/v1/namespaces/race/configmaps')).body.items).toHaveLength(4);
      const quota = (await s.call('GET', '/api/v1/namespaces/race/resourcequotas/q')).body;
      expect(quota.status.used).toEqual({ 'count/configmaps': '4' });
    } finally {
      await s.close();
    }
  }, 60_000);
});
