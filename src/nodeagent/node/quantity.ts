import { badRequest } from '../../api/index.js';

/**
 * Resource quantities as the node computes with them: whole units (bytes, pods, pids) or
 * milli-units (cpu), as plain numbers. A node's figures stay far below 2^53.
 */

const SCALE: Readonly<Record<string, number>> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
const QUANTITY = /^(\d+(?:\.\d*)?|\.\d+)(?:[eE]([-+]?\d+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei))?$/;

/** The value of a non-negative quantity ("1Gi" → 1073741824, "500m" → 0.5); throws a 400 Status otherwise. */
export function quantityValue(text: string, what: string): number {
  const match = QUANTITY.exec(text.trim());
  if (!match) throw badRequest(`${what}: ${JSON.stringify(text)} is not a quantity`);
  const [, digits, exponent, suffix] = match;
  return Number(digits) * (exponent !== undefined ? 10 ** Number(exponent) : SCALE[suffix ?? '']!);
}

/** Milli-units of a cpu quantity, rounded up as the kubelet rounds reservations. */
export const milliCpu = (text: string, what: string): number => Math.ceil(quantityValue(text, what) * 1000 - 1e-9);

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
