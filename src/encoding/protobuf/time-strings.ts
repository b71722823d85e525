/**
 * The RFC 3339 text of a whole second (a `Time`'s JSON), one string per second for every object
 * decoded: the same reasoning as short-strings.ts. A pod carries about ten times (created,
 * started, each condition's transition, each managedFields entry), most of them the same few
 * seconds as its neighbours', and each was formatted anew (a Date, its ISO text, a slice and a
 * concatenation: ~100 B of strings held per time). A fixed, direct-mapped table by the second:
 * at most TIME_SLOTS strings whatever is decoded.
 */

const TIME_SLOTS = 1024;
const MASK = TIME_SLOTS - 1;
const secondsAt = new Float64Array(TIME_SLOTS).fill(Number.NaN);
const textAt: string[] = new Array<string>(TIME_SLOTS).fill('');

/** `2026-11-28T06:00:00Z` for the Unix seconds of that moment (a RangeError past Date's range, as Date's). */
export function secondsTime(seconds: number): string {
  // `& MASK` takes the low bits of the second (of its 32-bit wrap for the rare huge one): neighbouring seconds, neighbouring slots.
  const slot = seconds & MASK;
  if (secondsAt[slot] === seconds) return textAt[slot]!;
  const text = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
  secondsAt[slot] = seconds;
  textAt[slot] = text;
  return text;
}
