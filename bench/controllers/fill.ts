// Shared by the controller benches: OBJECTS source ConfigMaps (label mirror=source) in a namespace,
// created with 64 requests in flight.
import { builtin, type Client } from '../../src/client/index.js';

export async function fillSources(client: Client, namespace: string, objects: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < objects) {
        const i = next++;
        await client.create(builtin.configMaps, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace, labels: { mirror: 'source' } },
          data: { n: String(i), payload: 'x'.repeat(64) },
        });
      }
    }),
  );
}

/** Resolves when `check` holds, looking every 10 ms. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The value at quantile `q` of sorted `values`. */
export const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
