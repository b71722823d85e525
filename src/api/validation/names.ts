import type { NameRule } from '../resource-type.js';

/**
 * The name formats of Kubernetes (RFC 1123 subdomain and label, RFC 1035 label, path segment).
 * Each check returns every problem as a message; an empty list means the name is valid.
 */

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;
const DNS1035 = '[a-z]([-a-z0-9]*[a-z0-9])?';

const whole = (pattern: string) => new RegExp(`^${pattern}$`);
const LABEL_RE = whole(LABEL);
const SUBDOMAIN_RE = whole(SUBDOMAIN);
const DNS1035_RE = whole(DNS1035);

const tooLong = (max: number) => `must be no more than ${max} characters`;

export function validateDns1123Subdomain(value: string): string[] {
  const problems: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) problems.push(tooLong(DNS1123_SUBDOMAIN_MAX));
  if (!SUBDOMAIN_RE.test(value)) {
    problems.push(
      `must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. 'example.com'; regex '${SUBDOMAIN}')`,
    );
  }
  return problems;
}

export function validateDns1123Label(value: string): string[] {
  const problems: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) problems.push(tooLong(DNS1123_LABEL_MAX));
  if (!LABEL_RE.test(value)) {
    problems.push(
      `must be a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. 'my-name' or '123-abc'; regex '${LABEL}')`,
    );
  }
  return problems;
}

export function validateDns1035Label(value: string): string[] {
  const problems: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) problems.push(tooLong(DNS1123_LABEL_MAX));
  if (!DNS1035_RE.test(value)) {
    problems.push(
      `must be a DNS-1035 label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. 'my-name' or 'abc-123'; regex '${DNS1035}')`,
    );
  }
  return problems;
}

/** Names that become one URL path segment as they are (the RBAC kinds). */
export function validatePathSegment(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const problems: string[] = [];
  for (const ch of ['/', '%']) if (value.includes(ch)) problems.push(`may not contain '${ch}'`);
  return problems;
}

const RULES: Record<NameRule, (value: string) => string[]> = {
  subdomain: validateDns1123Subdomain,
  label: validateDns1123Label,
  dns1035: validateDns1035Label,
  pathSegment: validatePathSegment,
};

/** The problems with `name` under a kind's naming rule; `[]` when it is valid. */
export function validateName(name: string, rule: NameRule): string[] {
  return RULES[rule](name);
}

/**
 * A generateName prefix: the name it will become has random characters after it, so a trailing
 * '-' is fine where a name could not end in one.
 */
export function validateNamePrefix(prefix: string, rule: NameRule): string[] {
  if (rule === 'pathSegment') return validatePathSegment(prefix);
  const masked = prefix.endsWith('-') ? `${prefix.slice(0, -1)}a` : prefix;
  return validateName(masked, rule);
}
