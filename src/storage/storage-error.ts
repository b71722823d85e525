/**
 * Why a storage call failed. Callers branch on `code`; the API server maps each code to its
 * Status (Conflict → 409, Compacted → 410 Expired, Corrupt → 500 StorageReadError, ...).
 */
export type StorageErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Corrupt'
  | 'InvalidArgument'
  | 'Unavailable'
  | 'Closed';

export interface StorageErrorDetails {
  readonly key?: string;
  readonly revision?: number;
  /** For `Conflict`: the modRevision the key actually has (0 when it does not exist). */
  readonly actualRevision?: number;
  /** For `Compacted`: the oldest revision still retained. */
  readonly compactedRevision?: number;
  /** For `FutureRevision`: the store's current revision. */
  readonly currentRevision?: number;
}

export class StorageError extends Error {
  override readonly name = 'StorageError';

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly details: StorageErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isStorageError = (error: unknown, code?: StorageErrorCode): error is StorageError =>
  error instanceof StorageError && (code === undefined || error.code === code);

export const notFound = (key: string) => new StorageError('NotFound', `key ${JSON.stringify(key)} not found`, { key });

export const alreadyExists = (key: string) =>
  new StorageError('AlreadyExists', `key ${JSON.stringify(key)} already exists`, { key });

export const conflict = (key: string, expected: number, actual: number) =>
  new StorageError(
    'Conflict',
    `key ${JSON.stringify(key)} is at revision ${actual}, not the expected ${expected}`,
    { key, revision: expected, actualRevision: actual },
  );

export const compacted = (revision: number, compactedRevision: number) =>
  new StorageError(
    'Compacted',
    `revision ${revision} has been compacted; the oldest retained revision is ${compactedRevision}`,
    { revision, compactedRevision },
  );

export const futureRevision = (revision: number, currentRevision: number) =>
  new StorageError('FutureRevision', `revision ${revision} is newer than the current revision ${currentRevision}`, {
    revision,
    currentRevision,
  });

export const corrupt = (key: string, cause: unknown) =>
  new StorageError('Corrupt', `the value stored at ${JSON.stringify(key)} cannot be decoded`, { key }, { cause });

export const invalid = (message: string, details: StorageErrorDetails = {}) =>
  new StorageError('InvalidArgument', message, details);

export const closed = () => new StorageError('Closed', 'the store is closed');

/** Every store operation starts here: after `close()`, each one fails with `Closed`. */
export function checkOpen(isClosed: boolean): void {
  if (isClosed) throw closed();
}
