import { invalid, type ResourceType } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';

/**
 * A type's WriteStrategy on the generic write path: create and update call these after the
 * schema check. Types without a strategy pass through unchanged.
 */

export function strategyForCreate(type: ResourceType, object: ApiObject): ApiObject {
  const strategy = type.strategy;
  if (!strategy) return object;
  const prepared = (strategy.prepareForCreate?.(object) ?? object) as ApiObject;
  const causes = strategy.validate?.(prepared, undefined) ?? [];
  if (causes.length > 0) throw invalid(type.kind, prepared.metadata.name ?? prepared.metadata.generateName ?? '', causes);
  return prepared;
}

/**
 * `statusWrite`: the write came through `/status` (`isStatusWrite`), so it is checked by the
 * type's status rules, not by the spec rules `validate` holds (the spec is the stored one).
 */
export function strategyForUpdate(type: ResourceType, next: ApiObject, current: ApiObject, statusWrite = false): ApiObject {
  const strategy = type.strategy;
  if (!strategy) return next;
  const prepared = (strategy.prepareForUpdate?.(next, current) ?? next) as ApiObject;
  const causes = (statusWrite ? strategy.validateStatus?.(prepared, current) : strategy.validate?.(prepared, current)) ?? [];
  if (causes.length > 0) throw invalid(type.kind, prepared.metadata.name ?? '', causes);
  return prepared;
}
