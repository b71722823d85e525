// Child process of bench/apiserver/flood.ts: the flooding client, in a process of its own so that
// reading its lists does not delay the measured client's event loop. Prints its LoadResult as JSON.
import { load } from '../support/load.js';

const origin = process.env['FLOOD_ORIGIN']!;
// Says "flooding" once the first list is back, so the measured client starts under the flood.
const first = await fetch(`${origin}/api/v1/namespaces/default/configmaps`, { headers: { authorization: 'Bearer flooder-token' } });
await first.arrayBuffer();
process.stdout.write('flooding\n');
const result = await load({
  origin,
  path: () => '/api/v1/namespaces/default/configmaps',
  headers: { authorization: 'Bearer flooder-token' },
  requests: Number.MAX_SAFE_INTEGER,
  connections: Number(process.env['FLOOD_CONNECTIONS'] ?? 64),
  maxMs: Number(process.env['FLOOD_MS'] ?? 12_000),
  expectStatus: 200,
});
process.stdout.write(`${JSON.stringify(result)}\n`);
