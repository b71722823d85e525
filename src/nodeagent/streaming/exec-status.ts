/**
 * The `Status` an exec or attach ends with on the error channel (v4 and v5): `Success`, or a
 * `Failure` with reason `NonZeroExitCode` and the exit code as a cause, or the failure that
 * stopped the session. The runtime writes the first two itself; the agent writes the last kind
 * when the session fails on its side (runtime unreachable, container gone).
 */
import { isStatusError } from '../../api/index.js';

export interface StreamStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly causes: readonly { readonly reason: string; readonly message: string }[] };
  readonly code?: number;
}

export function successStatus(): StreamStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
}

export function exitCodeStatus(exitCode: number): StreamStatus {
  if (exitCode === 0) return successStatus();
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

export function failureStatus(error: unknown): StreamStatus {
  if (isStatusError(error)) return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: error.message, reason: error.reason, code: error.code };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 };
}

/** The exit code a Status reports: 0 for Success, the ExitCode cause for NonZeroExitCode, else undefined. */
export function exitCodeOf(status: StreamStatus): number | undefined {
  if (status.status === 'Success') return 0;
  if (status.reason !== 'NonZeroExitCode') return undefined;
  const cause = status.details?.causes.find((c) => c.reason === 'ExitCode');
  return cause ? Number(cause.message) : undefined;
}
