export { AuditLogFile } from './audit-log-file.js';
export type { AuditLogFileOptions } from './audit-log-file.js';
export type { AuditEvent, ObjectReference, ResponseStatus } from './audit-event.js';
export { installAudit } from './install-audit.js';
export type { AuditOptions, AuditSink } from './install-audit.js';
export { AUDIT_LEVELS, AUDIT_STAGES, auditEvaluator, auditPolicySchema, parseAuditPolicy } from './policy.js';
export type { AuditAttributes, AuditDecision, AuditLevel, AuditPolicy, AuditPolicyRule, AuditStage } from './policy.js';
export { addAuditAnnotations, auditAnnotationsOf } from './request-annotations.js';
