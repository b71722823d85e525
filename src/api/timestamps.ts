/**
 * The two time formats Kubernetes objects carry, both RFC 3339 in UTC: `Time` (metav1.Time:
 * whole seconds, `2026-01-02T03:04:05Z`; creation and deletion timestamps, conditions, managed
 * fields) and `MicroTime` (six fractional digits, `2026-01-02T03:04:05.123000Z`; Lease renew
 * times, Events, audit stages). A JavaScript clock has milliseconds, so the last three digits of
 * a MicroTime are zeros.
 */

/** `Time`: RFC 3339 to the second (the milliseconds dropped, not rounded, as Go truncates). */
export function rfc3339(at: Date | number = Date.now()): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  const second = Math.floor(ms / 1000);
  // Every write stamps the current second, often several times (creation time, managedFields):
  // the last second's text is kept. An invalid time (NaN) never matches and throws as before.
  if (second !== lastSecond) {
    lastText = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    lastSecond = second;
  }
  return lastText;
}
let lastSecond = Number.NaN;
let lastText = '';

/** `MicroTime`: RFC 3339 with six fractional digits. */
export function microTime(at: Date | number = Date.now()): string {
  const iso = (typeof at === 'number' ? new Date(at) : at).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}
