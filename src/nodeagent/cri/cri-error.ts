/**
 * A failed CRI call. It is a StatusError, so whatever serves the node agent's API can answer with
 * it as is, and it keeps the runtime's gRPC status code for callers that branch on it
 * (`NOT_FOUND` after a sandbox vanished, `UNAVAILABLE` while the runtime restarts).
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { StatusError, type StatusReason } from '../../api/index.js';

export type GrpcCodeName = keyof typeof GrpcStatus;

const REASONS: Partial<Record<GrpcStatus, StatusReason>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 'BadRequest',
  [GrpcStatus.OUT_OF_RANGE]: 'BadRequest',
  [GrpcStatus.NOT_FOUND]: 'NotFound',
  [GrpcStatus.ALREADY_EXISTS]: 'AlreadyExists',
  [GrpcStatus.FAILED_PRECONDITION]: 'Conflict',
  [GrpcStatus.ABORTED]: 'Conflict',
  [GrpcStatus.PERMISSION_DENIED]: 'Forbidden',
  [GrpcStatus.UNAUTHENTICATED]: 'Unauthorized',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'TooManyRequests',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'Timeout',
  [GrpcStatus.UNAVAILABLE]: 'ServiceUnavailable',
  [GrpcStatus.CANCELLED]: 'ServiceUnavailable',
  [GrpcStatus.UNIMPLEMENTED]: 'MethodNotAllowed',
};

export class CriError extends StatusError {
  /** The gRPC status code the runtime answered with. */
  readonly grpcCode: GrpcStatus;
  /** The RPC that failed, e.g. `RuntimeService/RunPodSandbox`. */
  readonly method: string;

  constructor(method: string, grpcCode: GrpcStatus, details: string, cause?: unknown) {
    super({ reason: REASONS[grpcCode] ?? 'InternalError', message: `CRI ${method}: ${GrpcStatus[grpcCode] ?? grpcCode}: ${details}`, cause });
    this.grpcCode = grpcCode;
    this.method = method;
  }

  get grpcCodeName(): string {
    return GrpcStatus[this.grpcCode] ?? String(this.grpcCode);
  }
}

export function isCriError(error: unknown, code?: GrpcStatus): error is CriError {
  return error instanceof CriError && (code === undefined || error.grpcCode === code);
}

export { GrpcStatus };
