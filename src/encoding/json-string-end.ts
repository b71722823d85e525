/**
 * Where the JSON string whose opening quote is at `start` ends: the index of its closing quote, or
 * `text.length` when it never closes. Text scans skip strings with it: `indexOf` finds the next
 * quote natively instead of a loop over every character of a long value, and a quote counts as
 * the end only after an even run of backslashes.
 */
export function jsonStringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    // The opening quote stops the walk back: it is not a backslash.
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
