import type { Service } from '../../src/api/index.js';
import { familyOf, type AddressFamily } from './pod-endpoint.js';

/**
 * The address families a Service's endpoints are published in: its `spec.ipFamilies`, else the
 * family of its cluster IP, else IPv4 (a headless Service the API server gave no families).
 */
export function serviceFamilies(service: Service): AddressFamily[] {
  const families = service.spec?.ipFamilies;
  if (families && families.length > 0) return [...new Set(families)];
  const ip = service.spec?.clusterIP;
  if (ip && ip !== 'None') return [familyOf(ip)];
  return ['IPv4'];
}

/** Whether the Service is headless (`clusterIP: None`): its endpoints are published without ports when it has none. */
export const isHeadless = (service: Service): boolean => service.spec?.clusterIP === 'None';

/** The label every endpoints object of a headless Service carries (upstream's `service.kubernetes.io/headless`). */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/**
 * The labels an endpoints object copies from its Service: the Service's own, with the headless
 * label set exactly when the Service is headless.
 */
export function labelsFromService(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...service.metadata.labels };
  if (isHeadless(service)) labels[HEADLESS_LABEL] = '';
  else delete labels[HEADLESS_LABEL];
  return labels;
}
