import { badRequest, quantityValue } from '../../api/index.js';

/**
 * The units of a node's capacity and reservations: flag quantities read as whole units (bytes,
 * pods, pids) or milli-units (cpu), and written back as the kubelet reports them. A node's
 * figures stay far below 2^53.
 */

/** The value of a non-negative quantity ("1Gi" → 1073741824, "500m" → 0.5); throws a 400 Status otherwise. */
export function flagQuantity(text: string, what: string): number {
  const value = quantityValue(text);
  if (value === undefined || value < 0) throw badRequest(`${what}: ${JSON.stringify(text)} is not a quantity`);
  return value;
}

/** Milli-units of a cpu quantity, rounded up as the kubelet rounds reservations. */
export const milliCpu = (text: string, what: string): number => Math.ceil(flagQuantity(text, what) * 1000 - 1e-9);

/** Bytes as the kubelet reports memory and storage: whole KiB as `<n>Ki`, else plain bytes. */
export function formatBytes(bytes: number): string {
  const whole = Math.max(0, Math.floor(bytes));
  return whole % 1024 === 0 ? `${whole / 1024}Ki` : String(whole);
}

/** CPU milli-units: whole cores as `2`, else `1500m`. */
export function formatMilliCpu(milli: number): string {
  const whole = Math.max(0, Math.floor(milli));
  return whole % 1000 === 0 ? String(whole / 1000) : `${whole}m`;
}
