/**
 * How a list field merges, as Kubernetes declares it on its Go types (`patchStrategy`,
 * `patchMergeKey`, `listType`, `listMapKeys`):
 * - `map`: an associative list; items are identified by `keys` (server-side apply) and merged by
 *   `mergeKey` (strategic merge patch: the first key, as Kubernetes' patchMergeKey).
 * - `set`: a list of scalars merged as a set (finalizers).
 * - `atomic`: replaced as a whole (every list not declared otherwise).
 */
export type ListType =
  | { readonly type: 'map'; readonly keys: readonly string[]; readonly mergeKey: string }
  | { readonly type: 'set' }
  | { readonly type: 'atomic' };
