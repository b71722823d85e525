import type { UserInfo } from '../authn/user.js';
import type { RequestInfo } from '../request-info.js';
import type { AuditLevel, AuditStage } from './policy.js';

/** An audit.k8s.io/v1 `Event`, one per logged stage of a request: the line the audit log holds. */
export interface AuditEvent {
  readonly kind: 'Event';
  readonly apiVersion: 'audit.k8s.io/v1';
  readonly level: Exclude<AuditLevel, 'None'>;
  readonly auditID: string;
  readonly stage: AuditStage;
  readonly requestURI: string;
  readonly verb: string;
  readonly user: { readonly username: string; readonly uid?: string; readonly groups?: readonly string[]; readonly extra?: UserInfo['extra'] };
  readonly sourceIPs: readonly string[];
  readonly userAgent?: string;
  readonly objectRef?: ObjectReference;
  readonly responseStatus?: ResponseStatus;
  readonly requestObject?: unknown;
  readonly responseObject?: unknown;
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ObjectReference {
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly apiGroup?: string;
  readonly apiVersion: string;
  readonly subresource?: string;
}

/** The answer's code, and for a failure the Status it carried (a `metav1.Status` without its type fields). */
export interface ResponseStatus {
  readonly metadata: Record<string, never>;
  readonly code: number;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: unknown;
}

export function objectReferenceOf(info: RequestInfo): ObjectReference {
  return {
    resource: info.resource,
    ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
    ...(info.name !== undefined ? { name: info.name } : {}),
    ...(info.group !== '' ? { apiGroup: info.group } : {}),
    apiVersion: info.version,
    ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
  };
}

export function auditUserOf(user: UserInfo | undefined): AuditEvent['user'] {
  if (user === undefined) return { username: '' };
  return { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) };
}
