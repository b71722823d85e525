import { invalid } from '../../api/index.js';
import { queryParam, type HandlerContext } from '../request/index.js';
import type { WriteManager } from './managed-fields.js';

const PATCH_OPTIONS = { group: 'meta.k8s.io', kind: 'PatchOptions' };
const MAX_MANAGER = 128;
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * The manager a write is recorded under in managedFields: the `fieldManager` parameter, which
 * apply requires; other writes default to the User-Agent before its first `/` (as Kubernetes).
 */
export function writeManagerOf(ctx: HandlerContext, operation: WriteManager['operation']): WriteManager {
  const subresource = ctx.info.subresource ? { subresource: ctx.info.subresource } : {};
  const given = queryParam(ctx, 'fieldManager');
  if (given !== undefined && given !== '') {
    if (given.length > MAX_MANAGER || !PRINTABLE.test(given)) {
      throw invalid(PATCH_OPTIONS, '', [
        { reason: 'FieldValueInvalid', field: 'fieldManager', message: `must be at most ${MAX_MANAGER} printable characters` },
      ]);
    }
    return { manager: given, operation, ...subresource };
  }
  if (operation === 'Apply') {
    throw invalid(PATCH_OPTIONS, '', [{ reason: 'FieldValueRequired', field: 'fieldManager', message: 'is required for apply patch' }]);
  }
  const agent = String(ctx.request.headers['user-agent'] ?? '');
  const slash = agent.indexOf('/');
  const head = slash < 0 ? agent : agent.slice(0, slash);
  // Nearly every agent is printable already: filtered character by character only when it is not.
  const prefix = (PRINTABLE.test(head) ? head : [...head].filter((c) => PRINTABLE.test(c)).join('')).slice(0, MAX_MANAGER);
  return { manager: prefix || 'unknown', operation, ...subresource };
}
