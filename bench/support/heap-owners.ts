// Who holds what a V8 heap snapshot holds: every object is walked to from the snapshot's root
// (breadth first, weak edges left out) and charged to the nearest owner on the path that reached
// it first — an object of an owner class (`SimulatedRuntime`, `EventRecorder`, ...) or a property
// or closure variable of an owner name (`entries`, `writtenPayloads`, ...) — its self size summed
// per owner, with the kinds that make each owner's share (as heap-summary.ts groups them). Given two
// snapshots, the second's less the first's, divided by `per` (the pods started between them): what
// each owner added a pod. An object two owners reach is charged to the one with the shorter path
// (a dominator tree would charge it to neither): read the shares as where memory sits, not as
// what freeing one owner would give back.
//   node --import tsx bench/support/heap-owners.ts <after.heapsnapshot> [<before.heapsnapshot> <per>] [--owners=A,B] [--kinds=N]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** The hollow nodes' per-pod holders (classes, then property and closure variable names). */
const DEFAULT_OWNERS = [
  'SimulatedRuntime',
  'StatusWriter',
  'EventRecorder',
  'EventSpamFilter',
  'ProbeManager',
  'ImageManager',
  'CrashLoopBackoff',
  'CacheWriter',
  'ViewCacheWriter',
  'Informer',
  'CriClient',
  'entries',
  'sets',
  'writtenPayloads',
  'exited',
  'previous',
];

type Totals = Map<string, { bytes: number; count: number; kinds: Map<string, { bytes: number; count: number }> }>;

function owners(path: string, names: ReadonlySet<string>): Totals {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const { node_fields: nodeFields, node_types: nodeTypes, edge_fields: edgeFields, edge_types: edgeTypes } = snap.snapshot.meta;
  const width = nodeFields.length;
  const typeAt = nodeFields.indexOf('type');
  const nameAt = nodeFields.indexOf('name');
  const sizeAt = nodeFields.indexOf('self_size');
  const edgeCountAt = nodeFields.indexOf('edge_count');
  const edgeWidth = edgeFields.length;
  const edgeTypeAt = edgeFields.indexOf('type');
  const edgeNameAt = edgeFields.indexOf('name_or_index');
  const edgeToAt = edgeFields.indexOf('to_node');
  const types = nodeTypes[0];
  const edgeKinds = edgeTypes[0];
  const weak = edgeKinds.indexOf('weak');
  const element = edgeKinds.indexOf('element');
  const hidden = edgeKinds.indexOf('hidden');
  const count = snap.nodes.length / width;
  const firstEdge = new Int32Array(count + 1);
  for (let n = 0; n < count; n++) firstEdge[n + 1] = firstEdge[n]! + snap.nodes[n * width + edgeCountAt]! * edgeWidth;
  const labels = ['(no owner)'];
  const labelOf = new Map<string, number>();
  const label = (name: string): number => {
    let at = labelOf.get(name);
    if (at === undefined) labelOf.set(name, (at = labels.push(name) - 1));
    return at;
  };
  const kindOf = (n: number): string => {
    const type = types[snap.nodes[n * width + typeAt]!]!;
    return type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[n * width + nameAt]!]}` : type;
  };
  const owner = new Int32Array(count).fill(-1);
  const queue = new Int32Array(count);
  let head = 0;
  let tail = 0;
  owner[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    const n = queue[head++]!;
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += edgeWidth) {
      const kind = snap.edges[e + edgeTypeAt]!;
      if (kind === weak) continue;
      const to = snap.edges[e + edgeToAt]! / width;
      if (owner[to] !== -1) continue;
      let at = owner[n]!;
      const type = types[snap.nodes[to * width + typeAt]!];
      const className = type === 'object' ? snap.strings[snap.nodes[to * width + nameAt]!]! : '';
      const edgeName = kind === element || kind === hidden ? '' : String(snap.strings[snap.edges[e + edgeNameAt]!]);
      if (names.has(className)) at = label(className);
      else if (names.has(edgeName)) at = label(`.${edgeName}`);
      owner[to] = at;
      queue[tail++] = to;
    }
  }
  const totals: Totals = new Map();
  for (let n = 0; n < count; n++) {
    const name = labels[owner[n] === -1 ? 0 : owner[n]!]!;
    const bytes = snap.nodes[n * width + sizeAt]!;
    let total = totals.get(name);
    if (!total) totals.set(name, (total = { bytes: 0, count: 0, kinds: new Map() }));
    total.bytes += bytes;
    total.count += 1;
    const key = kindOf(n);
    const kind = total.kinds.get(key) ?? { bytes: 0, count: 0 };
    kind.bytes += bytes;
    kind.count += 1;
    total.kinds.set(key, kind);
  }
  return totals;
}

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const [afterPath, beforePath, perText] = args.filter((a) => !a.startsWith('--'));
if (!afterPath) throw new Error('usage: heap-owners.ts <after.heapsnapshot> [<before.heapsnapshot> <per>] [--owners=A,B] [--kinds=N]');
const names = new Set([...DEFAULT_OWNERS, ...(flag('owners')?.split(',').filter(Boolean) ?? [])]);
const kindsShown = Number(flag('kinds') ?? 4);
const diff = beforePath !== undefined && perText !== undefined;
const per = diff ? Number(perText) : 1;
const after = owners(afterPath, names);
const before: Totals = diff ? owners(beforePath, names) : new Map();
const unit = diff ? 1024 : 1048576;
const rows = [...after].map(([name, total]) => {
  const was = before.get(name);
  const kinds = [...total.kinds].map(([kind, k]) => ({ kind, bytes: k.bytes - (was?.kinds.get(kind)?.bytes ?? 0), count: k.count - (was?.kinds.get(kind)?.count ?? 0) }));
  return { name, bytes: total.bytes - (was?.bytes ?? 0), count: total.count - (was?.count ?? 0), kinds: kinds.sort((a, b) => b.bytes - a.bytes).slice(0, kindsShown) };
});
const all = rows.reduce((sum, row) => sum + row.bytes, 0);
console.log(`${diff ? `added per one of ${per}` : 'held'}: ${(all / per / unit).toFixed(2)} ${diff ? 'KB' : 'MB'} in all, by owner (nearest on the first path found)`);
for (const row of rows.sort((a, b) => b.bytes - a.bytes)) {
  if (Math.abs(row.bytes / per / unit) < 0.005) continue;
  const kinds = row.kinds.map((k) => `${k.kind} ${(k.bytes / per / unit).toFixed(2)} (${(k.count / per).toFixed(1)})`).join(', ');
  console.log(`${(row.bytes / per / unit).toFixed(2).padStart(9)} ${diff ? 'KB' : 'MB'}  ${(row.count / per).toFixed(1).padStart(8)}  ${row.name}: ${kinds}`);
}
