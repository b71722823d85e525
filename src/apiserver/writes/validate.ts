import { invalid, statusPartOf, statusViewOf, validateObject, validateObjectMeta, validateStatusWrite, type ResourceType } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import type { HandlerContext } from '../request/index.js';
import { fieldValidationOf, firstFatalError, reportFieldProblems, withoutUnknownFields, type FieldValidation } from './field-validation.js';
import { isStatusWrite } from '../subresources/write-scope.js';

/** How a write body's fields were decoded: duplicates seen, and the fieldValidation level. */
export interface FieldCheck {
  readonly duplicates: readonly string[];
  readonly level: FieldValidation;
}

/**
 * Checks a write body: unknown fields are dropped (and reported as `fieldValidation` says), then
 * the kind's schema and the metadata rules (422 with causes; 400 with the first one when the body
 * also had unknown or duplicate fields). A write through `/status` is checked on its metadata and
 * status only, as Kubernetes' status strategies do: callers split it first (`splitWrite`), so
 * the rest is the stored object's.
 */
export function validateForWrite(ctx: HandlerContext, object: ApiObject, fields?: FieldCheck): ApiObject {
  const { type } = ctx;
  const statusWrite = isStatusWrite(ctx);
  const { value, unknown } = statusWrite ? withoutUnknownStatusFields(type, object) : withoutUnknownFields(type.schema, object);
  const pruned = value as ApiObject;
  const problems = { unknown, duplicates: fields?.duplicates ?? [] };
  const metaCauses = validateObjectMeta(pruned.metadata, { namespaced: type.namespaced, nameRule: type.nameValidation });
  // Through `/status` the rest is the stored object's (write-scope.ts): only what it may change is checked.
  const result = statusWrite ? validateStatusWrite(type, pruned) : validateObject(type, pruned);
  const causes = [...metaCauses, ...('causes' in result ? result.causes : [])];
  if (causes.length > 0) {
    throw firstFatalError(problems, causes) ?? invalid(type.kind, pruned.metadata.name ?? pruned.metadata.generateName ?? '', causes);
  }
  reportFieldProblems(ctx, fields?.level ?? fieldValidationOf(ctx), problems);
  // The schema's output, not a merge: it has dropped JSON nulls (kubectl sends `creationTimestamp: null`).
  return 'object' in result ? (result.object as ApiObject) : pruned;
}


/**
 * A status write's unknown fields are looked for in what it may change: the rest is the stored
 * object's, which the client did not send (it would hear of fields it never wrote).
 */
function withoutUnknownStatusFields(type: ResourceType, object: ApiObject): { value: unknown; unknown: string[] } {
  const part = statusPartOf(type);
  if (!part) return withoutUnknownFields(type.schema, object);
  const { view, rest } = statusViewOf(object);
  const pruned = withoutUnknownFields(part, view);
  return { value: Object.assign(rest, pruned.value), unknown: pruned.unknown };
}

/** The checks of a write body, again, on an object admission changed (fields it added that the kind lacks are dropped silently). */
export const revalidate = (ctx: HandlerContext, object: ApiObject): ApiObject => validateForWrite(ctx, object, { duplicates: [], level: 'Ignore' });
