/**
 * Every failure reason svc answers with, keyed by the reason string clients branch on, with the
 * HTTP code Kubernetes pairs it with. docs/errors.md documents each key (a test keeps them equal).
 */
export const STATUS_REASONS = {
  BadRequest: { code: 400 },
  Unauthorized: { code: 401 },
  Forbidden: { code: 403 },
  NotFound: { code: 404 },
  MethodNotAllowed: { code: 405 },
  NotAcceptable: { code: 406 },
  AlreadyExists: { code: 409 },
  Conflict: { code: 409 },
  Gone: { code: 410 },
  Expired: { code: 410 },
  RequestEntityTooLarge: { code: 413 },
  UnsupportedMediaType: { code: 415 },
  Invalid: { code: 422 },
  TooManyRequests: { code: 429 },
  InternalError: { code: 500 },
  ServerTimeout: { code: 500 },
  StorageReadError: { code: 500 },
  ServiceUnavailable: { code: 503 },
  Timeout: { code: 504 },
  // The node agent's reasons a container cannot start for its config or volumes. Not API server
  // answers: a pod's status and events carry them; the code says the agent failed, not the caller.
  CreateContainerConfigError: { code: 500 },
  FailedMount: { code: 500 },
  // The node agent's lifecycle hook failures (src/nodeagent/probes): never API server answers,
  // they become the container's event reasons; the code says the agent's side failed.
  FailedPostStartHook: { code: 500 },
  FailedPreStopHook: { code: 500 },
  // The node agent's container waiting reasons for images (src/nodeagent/images): a pod worker
  // puts the error's reason into the container's `state.waiting.reason` as it is.
  ErrImagePull: { code: 502 },
  ImagePullBackOff: { code: 503 },
  ErrImageNeverPull: { code: 404 },
  InvalidImageName: { code: 400 },
} as const satisfies Record<string, { readonly code: number }>;

export type StatusReason = keyof typeof STATUS_REASONS;

/** The machine-readable kind of one cause (JSON key `reason`, Go's `CauseType`). */
export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge'
  // policy/v1's cause of an eviction refused by a PodDisruptionBudget.
  | 'DisruptionBudget';

/** One entry of `details.causes`; Kubernetes omits the empty keys, and so do we. */
export interface StatusCause {
  reason?: CauseType;
  message?: string;
  field?: string;
}

/** A cause that names a field, as validation produces them. */
export interface FieldCause {
  reason: CauseType;
  message: string;
  /** Kubernetes path notation: `spec.containers[0].image`, `metadata.labels[app]`. */
  field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** For most reasons this is the resource (plural), not the kind: Kubernetes fills it that way. */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** Status.metadata is a ListMeta: an expired list carries the token to continue with in it. */
export interface StatusListMeta {
  continue?: string;
  resourceVersion?: string;
}

/** The `Status` body of a failed request, as it goes on the wire. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: StatusListMeta;
  status: 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

export interface StatusErrorInit {
  reason: StatusReason;
  message: string;
  /** Defaults to the reason's code in STATUS_REASONS. */
  code?: number;
  details?: StatusDetails;
  metadata?: StatusListMeta;
  cause?: unknown;
}

/** An error that knows the `Status` body a Kubernetes client expects for it. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly reason: StatusReason;
  readonly code: number;
  readonly details: StatusDetails | undefined;
  readonly listMeta: StatusListMeta;

  constructor(init: StatusErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.reason = init.reason;
    this.code = init.code ?? STATUS_REASONS[init.reason].code;
    this.details = init.details;
    this.listMeta = init.metadata ?? {};
  }

  toStatus(): Status {
    const details = compactDetails(this.details);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { ...this.listMeta },
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(details ? { details } : {}),
      code: this.code,
    };
  }
}

// Clients read `details` only when it says something; an all-empty one is noise on the wire.
function compactDetails(details: StatusDetails | undefined): StatusDetails | undefined {
  if (!details) return undefined;
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes?.length) out.causes = details.causes.map(compactCause);
  if (details.retryAfterSeconds) out.retryAfterSeconds = details.retryAfterSeconds;
  return Object.keys(out).length > 0 ? out : undefined;
}

function compactCause(cause: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (cause.reason) out.reason = cause.reason;
  if (cause.message) out.message = cause.message;
  if (cause.field) out.field = cause.field;
  return out;
}

export function isStatusError(error: unknown, reason?: StatusReason): error is StatusError {
  return error instanceof StatusError && (reason === undefined || error.reason === reason);
}
