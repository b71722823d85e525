/**
 * The two time formats Kubernetes objects carry, both RFC 3339 in UTC: `Time` (metav1.Time:
 * whole seconds, `2026-01-02T03:04:05Z`; creation and deletion timestamps, conditions, managed
 * fields) and `MicroTime` (six fractional digits, `2026-01-02T03:04:05.123000Z`; Lease renew
 * times, Events, audit stages). A JavaScript clock has milliseconds, so the last three digits of
 * a MicroTime are zeros.
 */

/** `Time`: RFC 3339 to the second (the milliseconds dropped, not rounded, as Go truncates). */
export function rfc3339(at: Date | number = Date.now()): string {
  const iso = (typeof at === 'number' ? new Date(at) : at).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

/** `MicroTime`: RFC 3339 with six fractional digits. */
export function microTime(at: Date | number = Date.now()): string {
  const iso = (typeof at === 'number' ? new Date(at) : at).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}
