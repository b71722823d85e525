import type { FieldCause } from '../status-error.js';

/**
 * Builders for the field causes of a 422, one per Kubernetes cause type. The message is the part
 * after the field ("Required value", `Invalid value: "x": ...`), so that `invalid()` can show
 * `<field>: <message>` the way Kubernetes aggregates them.
 */

const MAX_SHOWN = 64;

/** A value as a cause shows it: strings quoted, numbers and booleans bare, structures abridged. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return 'null';
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    // A decoded body may hold a BigInt (CBOR) deep inside: JSON has no text for it.
    text = typeof value;
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/**
 * A value from a request inside an error message: a string as it is, anything else as
 * `formatValue` shows it. Never `String(value)`: a decoded object's own `toString` or `valueOf`
 * is data, and converting it throws.
 */
export function inMessage(value: unknown): string {
  return typeof value === 'string' ? value : formatValue(value);
}

const withDetail = (head: string, detail?: string) => (detail ? `${head}: ${detail}` : head);

export function fieldRequired(field: string, detail?: string): FieldCause {
  return { reason: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

export function fieldInvalid(field: string, value: unknown, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', field, message: withDetail(`Invalid value: ${formatValue(value)}`, detail) };
}

/**
 * An Invalid cause that names no value (upstream's `field.OmitValueType`): the fault is in how the
 * field's items go together (a Job's conditions), not in one value to show.
 */
export function fieldInvalidWithoutValue(field: string, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` };
}

export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldCause {
  return { reason: 'FieldValueTypeInvalid', field, message: withDetail(`Invalid value: ${formatValue(value)}`, detail) };
}

export function fieldNotSupported(field: string, value: unknown, supported: readonly unknown[]): FieldCause {
  const list = supported.map(formatValue).join(', ');
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${formatValue(value)}: supported values: ${list}` };
}

export function fieldTooLong(field: string, max: number): FieldCause {
  return { reason: 'FieldValueTooLong', field, message: `Too long: may not be more than ${max} bytes` };
}

export function fieldTooMany(field: string, actual: number, max: number): FieldCause {
  return { reason: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} items` };
}

export function fieldForbidden(field: string, detail: string): FieldCause {
  return { reason: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

export function fieldDuplicate(field: string, value: unknown): FieldCause {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${formatValue(value)}` };
}
