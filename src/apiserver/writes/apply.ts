import { badRequest, booleanParam, childSchema, ownField, setField, conflict, itemSchema, listTypeOf, notFound, StatusError, rfc3339, type Schema } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { requireStorableSize } from '../../encoding/index.js';
import { asTypedObject, decodeBody, nameFromUrl, queryParam, sendObject, type HandlerContext, yieldIfLarge } from '../request/index.js';
import { admitWrite } from './admit.js';
import { createObject } from './create-object.js';
import { revalidate, validateForWrite } from './validate.js';
import { apiVersionOf, type ApiObject } from '../api-object.js';
import { describePath, fieldSetOf, itemKey, ownedAtOrBelow, removePath, sameAt, splitPath, type FieldSet } from './field-set.js';
import type { FieldValidation } from './field-validation.js';
import { withoutUnknownFields } from './field-validation.js';
import { isJsonObject, type JsonObject } from './json-value.js';
import { MISSING, ValueIndex } from './value-index.js';
import { ownershipsOf, sameManager, withOwnerships, type Ownership } from './managed-fields.js';
import { updateObject } from './update-object.js';
import { writeManagerOf } from './write-options.js';
import { writableThrough } from '../subresources/write-scope.js';

const ATTEMPTS = 5;

/**
 * Server-side apply (`application/apply-patch+yaml`): the body is the manager's whole intent for
 * the object. Absent object: created from it (201). Otherwise merged into the live object:
 * - a field another manager owns with a different value is a conflict (409 listing each), unless
 *   `force=true`, which takes it over;
 * - fields the manager applied before and leaves out now are removed unless another manager owns
 *   them;
 * - managedFields records the manager's applied set (operation Apply).
 */
export async function applyPatch(ctx: HandlerContext, options: { dryRun: boolean; level: FieldValidation }): Promise<unknown> {
  const manager = writeManagerOf(ctx, 'Apply');
  const force = forceOf(queryParam(ctx, 'force'));
  const decoded = decodeBody(ctx, { object: true });
  if (!decoded) throw badRequest('the request has no body: an apply configuration is required');
  const { type, info } = ctx;
  const name = info.name!;
  requireStorableSize(decoded.value);
  requireIdentity(decoded.value);
  const raw = nameFromUrl(asTypedObject(ctx, decoded.value), name);
  if (raw.metadata.managedFields !== undefined) throw badRequest('metadata.managedFields must not be set in an apply configuration');
  const fields = { duplicates: decoded.duplicates, level: options.level };
  // Only the fields the endpoint writes are applied (and owned): status through /status, the rest through the object.
  const config = writableThrough(ctx, withoutUnknownFields(type.schema, raw).value as ApiObject);
  const gr = { group: type.group, resource: type.resource };

  for (let attempt = 1; ; attempt++) {
    const current = await ctx.reader.get(type, info.namespace, name);
    if (!current) {
      if (info.subresource !== undefined) throw notFound(gr, name);
      try {
        return await createObject(ctx, raw, { fields, manager });
      } catch (error) {
        if (error instanceof StatusError && error.reason === 'AlreadyExists' && attempt < ATTEMPTS) continue;
        throw error;
      }
    }
    const sent = config.metadata.resourceVersion;
    if (sent !== undefined && sent !== '' && sent !== current.metadata.resourceVersion) throw conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again');

    const applied = fieldSetOf(config, type.schema);
    const ownerships = ownershipsOf(current, type);
    const conflicts = ownerships.flatMap((o) =>
      sameManager(o, manager)
        ? []
        : [...applied].filter((path) => o.fields.has(path) && !splitPath(path).at(-1)!.startsWith('k:') && !sameAt(config, current, path)).map((path) => ({ owner: o, path })),
    );
    if (conflicts.length > 0 && !force) throw applyConflict(gr, name, conflicts);

    await yieldIfLarge(ctx);
    const merged = mergeApplied(current, config, type.schema) as ApiObject;
    const own = ownerships.find((o) => sameManager(o, manager));
    const taken = new Map<Ownership, Set<string>>();
    for (const c of conflicts) (taken.get(c.owner) ?? taken.set(c.owner, new Set()).get(c.owner)!).add(c.path);
    const others = ownerships
      .filter((o) => o !== own)
      .map((o) => ({ ...o, fields: force && taken.has(o) ? new Set([...o.fields].filter((p) => !taken.get(o)!.has(p))) : o.fields }));
    // What the manager stops applying goes, deepest first, unless someone else still owns it.
    const dropped = [...(own?.fields ?? [])].filter((p) => !applied.has(p)).sort((a, b) => splitPath(b).length - splitPath(a).length);
    if (dropped.length > 0) {
      const kept = [applied, ...others.map((o) => o.fields)].map(ownedAtOrBelow);
      for (const path of dropped) if (!kept.some((owns) => owns(path))) removePath(merged, path);
    }
    const mine: Ownership = { ...manager, apiVersion: apiVersionOf(type), time: rfc3339(), fields: applied };
    const withFields = withOwnerships(merged, own ? ownerships.map((o) => (o === own ? mine : others.find((x) => x.manager === o.manager && x.operation === o.operation && x.subresource === o.subresource)!)) : [...others, mine]);
    const checked = (await admitWrite(ctx, {
      operation: 'UPDATE',
      object: validateForWrite(ctx, withFields, fields),
      oldObject: current,
      dryRun: options.dryRun,
      optionsKind: 'PatchOptions',
      revalidate: (o) => revalidate(ctx, o),
    }))!;
    try {
      return sendObject(ctx, 200, await updateObject(ctx, { ...checked, metadata: { ...checked.metadata, managedFields: withFields.metadata.managedFields } }, current, manager, options.dryRun));
    } catch (error) {
      if (!isStorageError(error, 'Conflict') || attempt >= ATTEMPTS) throw isStorageError(error, 'NotFound') ? notFound(gr, name) : error;
    }
  }
}

/**
 * An apply configuration says what it is about in full, as upstream requires: `apiVersion`,
 * `kind` and `metadata.name` (a create or patch may leave them to the URL; apply may not).
 */
function requireIdentity(value: unknown): void {
  if (!isJsonObject(value)) return; // asTypedObject answers that one
  const missing = ['apiVersion', 'kind'].filter((field) => typeof ownField(value, field) !== 'string' || ownField(value, field) === '');
  const metadata = ownField(value, 'metadata');
  const name = isJsonObject(metadata) ? ownField(metadata, 'name') : undefined;
  if (typeof name !== 'string' || name === '') missing.push('metadata.name');
  if (missing.length > 0) throw badRequest(`an apply configuration must set apiVersion, kind and metadata.name; it lacks ${missing.join(', ')}`);
}

/** `force` named without a value forces, as upstream reads it. */
const forceOf = (value: string | undefined): boolean => booleanParam('force', value, true) === true;

function applyConflict(gr: { group: string; resource: string }, name: string, conflicts: readonly { owner: Ownership; path: string }[]): StatusError {
  const causes = conflicts.map(({ owner, path }) => ({
    reason: 'FieldManagerConflict' as const,
    message: `conflict with ${JSON.stringify(owner.manager)}${owner.operation === 'Update' ? ' using ' + owner.apiVersion : ''}`,
    field: describePath(path),
  }));
  const text =
    conflicts.length === 1
      ? `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`
      : `Apply failed with ${conflicts.length} conflicts: ${causes.map((c) => `${c.message}: ${c.field}`).join('\n')}`;
  const error = conflict(gr, name, text);
  return new StatusError({ reason: 'Conflict', message: text, details: { ...error.details, causes } });
}

/** The applied configuration merged into the live object: maps by key, associative lists by item, the rest replaced. */
function mergeApplied(live: unknown, config: unknown, schema: Schema | undefined): unknown {
  if (!isJsonObject(config) || !isJsonObject(live)) return structuredClone(config);
  const out: JsonObject = structuredClone(live);
  for (const [key, value] of Object.entries(config)) {
    const fieldSchema = childSchema(schema, key);
    const current = ownField(out, key);
    if (Array.isArray(value) && Array.isArray(current)) {
      const listType = listTypeOf(schema, key, fieldSchema);
      if (listType.type === 'map' && value.every(isJsonObject)) {
        const items = itemSchema(fieldSchema);
        const list = current;
        // By key in a map: a scan of the live list per applied item would cost n².
        const index = new ValueIndex(list.map((existing) => (isJsonObject(existing) ? itemKey(existing, listType.keys) : MISSING)));
        for (const item of value as JsonObject[]) {
          const id = itemKey(item, listType.keys);
          const at = index.find(id);
          if (at >= 0) list[at] = mergeApplied(list[at], item, items);
          else {
            list.push(structuredClone(item));
            index.add(id, list.length - 1);
          }
        }
        continue;
      }
      if (listType.type === 'set') {
        const list = current;
        const present = new ValueIndex(list.map((v) => JSON.stringify(v)));
        for (const item of value) {
          const text = JSON.stringify(item);
          if (present.has(text)) continue;
          list.push(item);
          present.add(text, list.length - 1);
        }
        continue;
      }
    }
    setField(out, key, mergeApplied(current, value, fieldSchema));
  }
  return out;
}

export type { FieldSet };
