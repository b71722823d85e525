import { rfc3339, type APIService, type APIServiceCondition } from '../../api/index.js';

/** The reasons of an APIService's Available condition (kube-aggregator's). */
export type AvailableReason =
  | 'Local'
  | 'Passed'
  | 'ServiceNotFound'
  | 'ServicePortError'
  | 'EndpointsNotFound'
  | 'MissingEndpoints'
  | 'FailedDiscoveryCheck';


export function availableCondition(status: 'True' | 'False', reason: AvailableReason, message: string): APIServiceCondition {
  return { type: 'Available', status, lastTransitionTime: rfc3339(), reason, message };
}

export const availableOf = (apiService: APIService): APIServiceCondition | undefined =>
  apiService.status?.conditions?.find((c) => c.type === 'Available');

/**
 * The conditions with `next` in place of the Available one; the transition time moves only when
 * the status does. Undefined when nothing would change (no write needed).
 */
export function withAvailable(apiService: APIService, next: APIServiceCondition): APIServiceCondition[] | undefined {
  const conditions = apiService.status?.conditions ?? [];
  const current = availableOf(apiService);
  if (current && current.status === next.status && current.reason === next.reason && current.message === next.message) return undefined;
  const merged = current && current.status === next.status ? { ...next, lastTransitionTime: current.lastTransitionTime ?? next.lastTransitionTime } : next;
  return [...conditions.filter((c) => c.type !== 'Available'), merged];
}
