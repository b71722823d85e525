import type { FastifyRequest } from 'fastify';

const annotations = new WeakMap<FastifyRequest, Record<string, string>>();

/**
 * Annotations a request's handling adds to its audit event (admission's, such as
 * ValidatingAdmissionPolicy's auditAnnotations). Kept per request whether or not an audit log is
 * on: the cost is one map per request that adds any.
 */
export function addAuditAnnotations(request: FastifyRequest, added: Readonly<Record<string, string>>): void {
  const current = annotations.get(request) ?? {};
  annotations.set(request, Object.assign(current, added));
}

export const auditAnnotationsOf = (request: FastifyRequest): Readonly<Record<string, string>> | undefined => annotations.get(request);
