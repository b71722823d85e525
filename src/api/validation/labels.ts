import type { FieldCause } from '../status-error.js';
import { fieldInvalid, fieldTooLong } from './causes.js';
import { validateDns1123Subdomain } from './names.js';

/** Label and annotation rules: qualified-name keys, short label values, a total annotation budget. */

export const QUALIFIED_NAME_MAX = 63;
export const LABEL_VALUE_MAX = 63;
/** All keys and values of one object's annotations together, in bytes. */
export const TOTAL_ANNOTATION_SIZE_MAX = 256 * 1024;

const NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME_PART_RE = new RegExp(`^${NAME_PART}$`);
const NAME_PART_HINT = `alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric (e.g. 'MyName', 'my.name' or '123-abc'; regex '${NAME_PART}')`;

/** A label or annotation key: `[prefix/]name`, the prefix a DNS subdomain, the name ≤ 63. */
export function validateQualifiedName(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) {
    return [`a qualified name is an optional DNS subdomain prefix and '/' followed by a name part of ${NAME_PART_HINT}`];
  }
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else problems.push(...validateDns1123Subdomain(prefix).map((p) => `prefix part ${p}`));
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else {
    if (name.length > QUALIFIED_NAME_MAX) problems.push(`name part must be no more than ${QUALIFIED_NAME_MAX} characters`);
    if (!NAME_PART_RE.test(name)) problems.push(`name part must consist of ${NAME_PART_HINT}`);
  }
  return problems;
}

/** A label value: empty, or ≤ 63 characters of the same alphabet as a key's name part. */
export function validateLabelValue(value: string): string[] {
  if (value === '') return [];
  const problems: string[] = [];
  if (value.length > LABEL_VALUE_MAX) problems.push(`must be no more than ${LABEL_VALUE_MAX} characters`);
  if (!NAME_PART_RE.test(value)) problems.push(`a label value must be empty or consist of ${NAME_PART_HINT.replace('MyName', 'MyValue')}`);
  return problems;
}

type StringMap = Readonly<Record<string, string>> | undefined | null;

// Both rules report on the map field itself, naming the offending key or value, as Kubernetes does.

export function validateLabels(labels: StringMap, fieldPath: string): FieldCause[] {
  if (!isMap(labels)) return [];
  const causes: FieldCause[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const problem of validateQualifiedName(key)) causes.push(fieldInvalid(fieldPath, key, problem));
    if (typeof value !== 'string') continue;
    for (const problem of validateLabelValue(value)) causes.push(fieldInvalid(fieldPath, value, problem));
  }
  return causes;
}

export function validateAnnotations(annotations: StringMap, fieldPath: string): FieldCause[] {
  if (!isMap(annotations)) return [];
  const causes: FieldCause[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    // Kubernetes accepts upper case anywhere in an annotation key, prefix included.
    for (const problem of validateQualifiedName(key.toLowerCase())) causes.push(fieldInvalid(fieldPath, key, problem));
    total += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_MAX) causes.push(fieldTooLong(fieldPath, TOTAL_ANNOTATION_SIZE_MAX));
  return causes;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
