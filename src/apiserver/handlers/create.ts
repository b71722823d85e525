import { alreadyExists, generateName, invalid, validateObject, validateObjectMeta, type ObjectMeta } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { checkNamespaceAcceptsContent, namespaceType, prepareNamespace } from '../namespaces.js';
import { encodeForStorage, objectKey, prepareForCreate, type ApiObject } from '../objects.js';
import { isDryRun, objectFromBody } from './body.js';
import { queryParam, sendObject, type HandlerContext } from './context.js';

// kube retries a generated name that collides a few times before answering AlreadyExists.
const GENERATE_NAME_ATTEMPTS = 8;

/** Checks a create or update body: the kind's schema and the metadata rules (422 with causes). */
export function validateForWrite(ctx: HandlerContext, object: ApiObject): ApiObject {
  const { type } = ctx;
  const metaCauses = validateObjectMeta(object.metadata, { namespaced: type.namespaced, nameRule: type.nameValidation });
  const result = validateObject(type, object);
  const causes = [...metaCauses, ...('causes' in result ? result.causes : [])];
  if (causes.length > 0) throw invalid(type.kind, object.metadata.name ?? object.metadata.generateName ?? '', causes);
  // The schema's output, not a merge: it has dropped JSON nulls (kubectl sends `creationTimestamp: null`).
  return 'object' in result ? (result.object as ApiObject) : object;
}

/** Stores a new object; shared by POST and by PUT of an object that does not exist yet. */
export async function createObject(ctx: HandlerContext, body: ApiObject): Promise<unknown> {
  const { type, info, registry } = ctx;
  const generated = !body.metadata.name && !!body.metadata.generateName;
  const named = (meta: ObjectMeta): ObjectMeta => (generated ? { ...meta, name: generateName(meta.generateName!) } : meta);
  let object = validateForWrite(ctx, { ...body, metadata: named(body.metadata) });
  if (type.namespaced) await checkNamespaceAcceptsContent(ctx.reader, registry, type, info.namespace!, object.metadata.name!);
  object = prepareForCreate(object);
  if (type === namespaceType(registry)) object = prepareNamespace(object);
  if (isDryRun(queryParam(ctx, 'dryRun'))) return sendObject(ctx, 201, object);

  for (let attempt = 1; ; attempt++) {
    try {
      const kv = await ctx.store.create(objectKey(ctx.store, type, info.namespace, object.metadata.name!), encodeForStorage(object));
      return sendObject(ctx, 201, { ...object, metadata: { ...object.metadata, resourceVersion: String(kv.modRevision) } });
    } catch (error) {
      if (!isStorageError(error, 'AlreadyExists')) throw error;
      if (!generated || attempt >= GENERATE_NAME_ATTEMPTS) throw alreadyExists({ group: type.group, resource: type.resource }, object.metadata.name!);
      object = { ...object, metadata: named(object.metadata) };
    }
  }
}

export async function create(ctx: HandlerContext): Promise<unknown> {
  return createObject(ctx, objectFromBody(ctx));
}
