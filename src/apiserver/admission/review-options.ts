import { upstreamGroupName } from '../../api/index.js';

/** The options object of a request, as AdmissionReview carries it (`meta.k8s.io/v1` CreateOptions and friends). */
export function reviewOptions(kind: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { kind, apiVersion: `${upstreamGroupName('meta.svc.io')}/v1`, ...fields };
}
