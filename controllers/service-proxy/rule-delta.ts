import type { OwnedChain, ServiceRules, SharedLine, Table } from './service-rules.js';

/**
 * What changes between two rule sets of one Service, as `iptables-restore --noflush` input: only
 * the chains and lines that differ are named, so the kernel's other rules (other Services, other
 * programs) are never flushed or rewritten.
 *
 * - a new chain is declared (`:NAME - [0:0]`) and filled;
 * - a changed chain is edited in place when its common lines keep their order: the lines it lost
 *   deleted (`-D` by rule), the new ones inserted at their places (`-I CHAIN n`); otherwise it is
 *   declared again (which flushes it in `--noflush` mode) and refilled;
 * - a shared line is appended or deleted by rule;
 * - a chain gone is flushed and deleted, after every jump to it is gone.
 *
 * `rules` counts the lines written (appended, inserted, deleted), the measure of churn.
 */
export interface RuleDelta {
  /** Per table, the restore lines (without the `*table` header and `COMMIT`). */
  readonly tables: ReadonlyMap<Table, string[]>;
  readonly rules: number;
}

const TABLES: readonly Table[] = ['filter', 'nat'];

export function ruleDelta(before: ServiceRules, after: ServiceRules): RuleDelta {
  const declare = new Map<Table, string[]>(TABLES.map((t) => [t, []]));
  const edits = new Map<Table, string[]>(TABLES.map((t) => [t, []]));
  // Every gone chain is flushed before any is deleted: they may jump to each other.
  const flushes = new Map<Table, string[]>(TABLES.map((t) => [t, []]));
  const removals = new Map<Table, string[]>(TABLES.map((t) => [t, []]));
  let rules = 0;
  for (const [name, chain] of after.chains) {
    const old = before.chains.get(name);
    const lines = edits.get(chain.table)!;
    // Most chains of a changed Service are unchanged: equal lines, nothing to write.
    if (old && old.table === chain.table && sameLines(old.lines, chain.lines)) continue;
    if (old && old.table === chain.table) {
      const inPlace = editInPlace(name, old, chain);
      if (inPlace) {
        lines.push(...inPlace);
        rules += inPlace.length;
        continue;
      }
    }
    declare.get(chain.table)!.push(`:${name} - [0:0]`);
    for (const line of chain.lines) lines.push(`-A ${name} ${line}`);
    rules += chain.lines.length;
  }
  const sharedKey = (l: SharedLine) => `${l.table}\u0000${l.chain}\u0000${l.line}`;
  const beforeShared = new Set(before.shared.map(sharedKey));
  const afterShared = new Set(after.shared.map(sharedKey));
  for (const l of after.shared) {
    if (beforeShared.has(sharedKey(l))) continue;
    edits.get(l.table)!.push(`-A ${l.chain} ${l.line}`);
    rules++;
  }
  // Jumps go before the chains they name: deletions of shared lines come before chain removals.
  for (const l of before.shared) {
    if (afterShared.has(sharedKey(l))) continue;
    edits.get(l.table)!.unshift(`-D ${l.chain} ${l.line}`);
    rules++;
  }
  for (const [name, chain] of before.chains) {
    if (after.chains.has(name)) continue;
    flushes.get(chain.table)!.push(`-F ${name}`);
    removals.get(chain.table)!.push(`-X ${name}`);
    rules += chain.lines.length;
  }
  const tables = new Map<Table, string[]>();
  for (const table of TABLES) {
    const lines = [...declare.get(table)!, ...edits.get(table)!, ...flushes.get(table)!, ...removals.get(table)!];
    if (lines.length > 0) tables.set(table, lines);
  }
  return { tables, rules };
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The edit of a chain whose kept lines stay in order (undefined when they do not). */
function editInPlace(name: string, old: OwnedChain, next: OwnedChain): string[] | undefined {
  const oldIndex = new Map<string, number>();
  old.lines.forEach((line, i) => oldIndex.set(line, i));
  // Duplicated lines make `-D` by rule ambiguous: rewrite those chains whole.
  if (oldIndex.size !== old.lines.length || new Set(next.lines).size !== next.lines.length) return undefined;
  const nextSet = new Set(next.lines);
  let last = -1;
  for (const line of next.lines) {
    const at = oldIndex.get(line);
    if (at === undefined) continue;
    if (at < last) return undefined;
    last = at;
  }
  const out: string[] = [];
  for (const line of old.lines) if (!nextSet.has(line)) out.push(`-D ${name} ${line}`);
  next.lines.forEach((line, i) => {
    if (!oldIndex.has(line)) out.push(`-I ${name} ${i + 1} ${line}`);
  });
  return out;
}

/** The whole restore input of a delta (tables in a fixed order, each committed). */
export function restoreInput(delta: RuleDelta): string {
  let text = '';
  for (const [table, lines] of delta.tables) text += `*${table}\n${lines.join('\n')}\nCOMMIT\n`;
  return text;
}
