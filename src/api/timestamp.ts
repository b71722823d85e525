/** A time as metav1.Time writes it: RFC 3339 in UTC, whole seconds (`2026-01-02T03:04:05Z`). */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
