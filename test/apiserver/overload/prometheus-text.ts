/** One sample of a Prometheus text exposition: the value of `name` whose labels include `labels`; undefined when none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const braces = rest[0] === '{' ? rest.slice(1, rest.indexOf('}')) : '';
    const found = Object.fromEntries([...braces.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (!Object.entries(labels).every(([k, v]) => found[k] === v)) continue;
    // Several series may match (a label left unnamed): their sum.
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
