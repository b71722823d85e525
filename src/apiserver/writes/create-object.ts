import { randomUUID } from 'node:crypto';
import { alreadyExists, generateName, withDefaults, type ObjectMeta } from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { namespaceType, prepareNamespace } from '../namespaces.js';
import { asServed, keepStoredBytes, storageBytes, storageText } from '../storage-codec.js';
import { withAnswerText } from '../answer-text.js';
import { spliceResourceVersion } from '../served-object.js';
import { objectKey } from '../object-keys.js';
import { prepareForCreate } from './prepare.js';
import { type ApiObject } from '../api-object.js';
import { dryRunOf, sendObject, yieldIfLarge, type HandlerContext } from '../request/index.js';
import { statusOnCreate } from '../subresources/write-scope.js';
import { abandonAdmission, admitWrite } from './admit.js';
import { managedFieldsAfterCreate, type WriteManager } from './managed-fields.js';
import { strategyForCreate } from './strategy.js';
import { certificateSigningRequestOnCreate, isCertificateSigningRequests } from './certificate-signing-requests.js';
import { revalidate, validateForWrite, type FieldCheck } from './validate.js';
import { writeManagerOf } from './write-options.js';

const named = (meta: ObjectMeta, prefix: string): ObjectMeta => ({ ...meta, name: generateName(prefix) });

// kube retries a generated name that collides a few times before answering AlreadyExists.
const GENERATE_NAME_ATTEMPTS = 8;

/**
 * Stores a new object; shared by POST, by PUT of an object that does not exist yet and by an
 * apply that creates. `prepared` skips the body checks (the caller ran them).
 */
export async function createObject(
  ctx: HandlerContext,
  body: ApiObject,
  options: { fields?: FieldCheck; manager?: WriteManager; prepared?: boolean } = {},
): Promise<unknown> {
  const { type, info, registry } = ctx;
  const manager = options.manager ?? writeManagerOf(ctx, 'Update');
  // The body is not validated yet: a generateName of another type is left for validation to refuse.
  const prefix: unknown = body.metadata.generateName;
  const generated = !body.metadata.name && typeof prefix === 'string' && prefix !== '';
  let object = generated ? { ...body, metadata: named(body.metadata, prefix as string) } : body;
  if (!options.prepared) object = validateForWrite(ctx, object, options.fields);
  await yieldIfLarge(ctx);
  // The uid is the object's from here, as Kubernetes fills it before admission: a strategy may
  // derive fields from it (a Job's generated selector names its own uid).
  const uid = randomUUID();
  object = strategyForCreate(type, { ...object, metadata: { ...object.metadata, uid } });
  // A certificate request names its requester: the server fills it from who is asking.
  if (isCertificateSigningRequests(type)) object = await certificateSigningRequestOnCreate(object, ctx.request.user);
  const dryRun = dryRunOf(ctx);
  object = (await admitWrite(ctx, { operation: 'CREATE', object, dryRun, optionsKind: 'CreateOptions', revalidate: (o) => revalidate(ctx, o) }))!;
  // After admission: a Pod's QoS class reflects the resources LimitRanger may have defaulted.
  object = statusOnCreate(type, prepareForCreate(object, Date.now(), uid));
  if (type === namespaceType(registry)) object = prepareNamespace(object);
  // After the status split: the defaults include the status fields Go always writes. A create's
  // manager owns the defaulted fields too, an apply's only the fields of its configuration.
  object =
    manager.operation === 'Apply'
      ? withDefaults(type, managedFieldsAfterCreate(type, object, manager))
      : managedFieldsAfterCreate(type, withDefaults(type, object), manager);
  // A Service's cluster IPs and NodePorts are reserved last, once nothing else can refuse it.
  const service = ctx.services?.serves(type) ? await ctx.services.prepare(object, undefined, dryRun).catch(async (error: unknown) => {
    await abandonAdmission(ctx);
    throw error;
  }) : undefined;
  if (service) object = service.object;
  object = asServed(object, type);
  if (dryRun) return sendObject(ctx, 201, object);

  for (let attempt = 1; ; attempt++) {
    try {
      const text = storageText(object, type);
      const key = objectKey(ctx.store, type, info.namespace, object.metadata.name!);
      const bytes = storageBytes(text, object);
      const kv = await ctx.store.create(key, bytes);
      const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(kv.modRevision) } };
      // The answer is the stored text with its version, as a GET sends it: encoded once. A type
      // stored in another version than the request's answers in the request's, so is encoded again.
      const json = type.storageVersion === undefined || type.storageVersion === type.version ? spliceResourceVersion(text, kv.modRevision) : undefined;
      // Kept as the first update's starting point (an update keeps its own result the same way).
      if (json !== undefined) {
        keepStoredBytes(withAnswerText(stored, json), bytes);
        ctx.reader.written.set(type, key, stored, bytes.byteLength);
      }
      return sendObject(ctx, 201, stored, json);
    } catch (error) {
      const taken = isStorageError(error, 'AlreadyExists');
      if (!taken || !generated || attempt >= GENERATE_NAME_ATTEMPTS) {
        // Not stored: what admission charged for it (quota) is given back, and the Service's addresses and ports.
        await service?.rollback();
        await abandonAdmission(ctx);
        throw taken ? alreadyExists({ group: type.group, resource: type.resource }, object.metadata.name!) : error;
      }
      object = { ...object, metadata: named(object.metadata, prefix as string) };
    }
  }
}
