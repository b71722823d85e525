/**
 * The index sets of an Indexed Job as its status and success policy write them: ascending,
 * comma-separated numbers and inclusive ranges (`1,3-5,7`), as upstream's completedIndexes,
 * failedIndexes and successPolicy.rules[].succeededIndexes.
 */

/** The indexes of `text`, ascending and without repeats; a string naming why when it does not parse (or is out of order). */
export function parseIndexIntervals(text: string, limit = Number.MAX_SAFE_INTEGER): number[] | string {
  if (text === '') return [];
  const out: number[] = [];
  let last = -1;
  for (const part of text.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) return `${JSON.stringify(part)} is not an index or a range of indexes (a-b)`;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) return `range ${JSON.stringify(part)} ends before it starts`;
    if (from <= last) return `${JSON.stringify(part)} is not after the indexes before it (they must be ascending, without overlap)`;
    if (to >= limit) return `index ${to} is not below completions (${limit})`;
    for (let i = from; i <= to; i++) out.push(i);
    last = to;
  }
  return out;
}

/** The short form of a set of indexes (any order, repeats ignored): `[1,3,4,5,7]` → `1,3-5,7`. */
export function formatIndexIntervals(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
