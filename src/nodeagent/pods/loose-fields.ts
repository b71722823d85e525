/**
 * Readers for the parts of a pod the API keeps loose (securityContext, dnsConfig, lifecycle):
 * each returns the field only when it has the expected type, so a malformed static manifest
 * cannot crash a sync.
 */
export type Loose = Readonly<Record<string, unknown>> | undefined;

export const looseObject = (value: unknown): Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export const looseInt = (object: Loose, key: string): number | undefined => {
  const value = object?.[key];
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
};

export const looseBool = (object: Loose, key: string): boolean | undefined => {
  const value = object?.[key];
  return typeof value === 'boolean' ? value : undefined;
};

export const looseString = (object: Loose, key: string): string | undefined => {
  const value = object?.[key];
  return typeof value === 'string' ? value : undefined;
};

export const looseStrings = (object: Loose, key: string): string[] => {
  const value = object?.[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
};

export const looseArray = (object: Loose, key: string): Loose[] => {
  const value = object?.[key];
  return Array.isArray(value) ? value.map(looseObject).filter((item) => item !== undefined) : [];
};
