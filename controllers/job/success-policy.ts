import { parseIndexIntervals } from '../../src/api/index.js';

interface Rule {
  readonly succeededIndexes?: string;
  readonly succeededCount?: number;
}

/**
 * The index of the first rule of an Indexed Job's `successPolicy` the completed indexes meet, as
 * upstream: only `succeededIndexes`: all of them completed; only `succeededCount`: that many
 * completed; both: that many of those indexes completed. Undefined when none is met.
 */
export function successPolicyMatch(policy: unknown, completed: ReadonlySet<number>): number | undefined {
  const rules = ((policy as { rules?: Rule[] } | undefined)?.rules ?? []) as Rule[];
  for (const [i, rule] of rules.entries()) {
    const listed = rule.succeededIndexes === undefined ? undefined : parseIndexIntervals(rule.succeededIndexes);
    if (typeof listed === 'string') continue;
    const done = listed === undefined ? completed.size : listed.filter((index) => completed.has(index)).length;
    const needed = rule.succeededCount ?? listed?.length ?? 0;
    if (done >= needed && needed > 0) return i;
  }
  return undefined;
}
