// What a V8 heap snapshot holds, by kind: the self size and count of its objects grouped by
// constructor (objects) or type (strings, code, arrays...), the largest groups first. Given two
// snapshots, the second's less the first's, divided by `per` (e.g. the pods started between them):
// what each one added.
//   node --import tsx bench/support/heap-summary.ts <after.heapsnapshot> [<before.heapsnapshot> <per>] [top]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

function groups(path: string): Map<string, { bytes: number; count: number }> {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    // Objects by constructor; everything else (strings, code, arrays, hidden) by its type alone.
    const key = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + nameAt]!]}` : type;
    const group = out.get(key) ?? { bytes: 0, count: 0 };
    group.bytes += snap.nodes[i + sizeAt]!;
    group.count += 1;
    out.set(key, group);
  }
  return out;
}

const [afterPath, second, third, fourth] = process.argv.slice(2);
if (!afterPath) throw new Error('usage: heap-summary.ts <after.heapsnapshot> [<before.heapsnapshot> <per>] [top]');
const diff = second !== undefined && third !== undefined && Number.isFinite(Number(third));
const top = Number((diff ? fourth : second) ?? 25);
const after = groups(afterPath);
const before = diff ? groups(second) : new Map<string, { bytes: number; count: number }>();
const per = diff ? Number(third) : 1;
const rows = [...after].map(([key, { bytes, count }]) => ({ key, bytes: bytes - (before.get(key)?.bytes ?? 0), count: count - (before.get(key)?.count ?? 0) }));
const total = rows.reduce((sum, row) => sum + row.bytes, 0);
console.log(`${diff ? `added per one of ${per}` : 'held'}: ${(total / per / (diff ? 1024 : 1048576)).toFixed(1)} ${diff ? 'KB' : 'MB'} in all`);
for (const row of rows.sort((a, b) => b.bytes - a.bytes).slice(0, top)) {
  console.log(`${(row.bytes / per / (diff ? 1024 : 1048576)).toFixed(diff ? 2 : 1).padStart(9)} ${diff ? 'KB' : 'MB'}  ${(row.count / per).toFixed(diff ? 1 : 0).padStart(9)}  ${row.key}`);
}
