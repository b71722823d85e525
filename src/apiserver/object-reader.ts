import { qualifiedResource, storageReadError, type ResourceType, type StatusError } from '../api/index.js';
import { isStorageError, type KeyValue, type Store } from '../storage/index.js';
import type { ApiObject } from './api-object.js';
import { collectionPrefix, objectKey } from './object-keys.js';
import { decodeStored } from './storage-codec.js';
import { WrittenObjects } from './written-objects.js';

/**
 * What the last versions written lately may hold, in stored bytes (see WrittenObjects): a few
 * thousand pods' or Leases', a few hundred 100-endpoint slices'. Events have a sixteenth of it
 * (512 KiB) apart.
 */
const WRITTEN_OBJECTS_BYTES = 8 * 1024 * 1024;

/** The 500 for an object storage holds but cannot decode, naming it and the way out. */
export function corruptObject(type: ResourceType, namespace: string | undefined, name: string, cause: unknown): StatusError {
  const where = type.namespaced && namespace ? ` in namespace ${JSON.stringify(namespace)}` : '';
  const gr = { group: type.group, resource: type.resource };
  return storageReadError(
    `${qualifiedResource(gr)} ${JSON.stringify(name)}${where} is corrupt in storage and cannot be read (${cause instanceof Error ? cause.message : String(cause)}); ` +
      'it can only be deleted, with ignoreStoreReadErrorWithClusterBreakingPotential=true under the AllowUnsafeMalformedObjectDeletion feature gate',
    gr,
    name,
  );
}

/** Reads a type's objects from the store, decoded and versioned. */
export class ObjectReader {
  /** The versions this server wrote lately: where an update starts (`getForUpdate`). */
  readonly written: WrittenObjects;

  constructor(
    private readonly store: Store,
    writtenBytes = WRITTEN_OBJECTS_BYTES,
  ) {
    this.written = new WrittenObjects(writtenBytes);
  }

  /**
   * The object an update starts from: the version this server last wrote, when it has it (a guess
   * the write checks: `written.isGuess`), else the store's. The kept version is answered at once,
   * not as a promise: a node's Lease renewal, nearly always a guess, need not await it.
   */
  getForUpdate(type: ResourceType, namespace: string | undefined, name: string): ApiObject | Promise<ApiObject | undefined> {
    return this.written.get(type, objectKey(this.store, type, namespace, name)) ?? this.get(type, namespace, name);
  }

  async get(type: ResourceType, namespace: string | undefined, name: string): Promise<ApiObject | undefined> {
    let kv: KeyValue | undefined;
    try {
      kv = await this.store.get(objectKey(this.store, type, namespace, name));
    } catch (error) {
      throw isStorageError(error, 'Corrupt') ? corruptObject(type, namespace, name, error) : error;
    }
    if (!kv) return undefined;
    try {
      return decodeStored(kv, type);
    } catch (error) {
      throw corruptObject(type, namespace, name, error);
    }
  }

  async list(type: ResourceType, namespace: string | undefined): Promise<{ items: ApiObject[]; revision: number }> {
    const { items, revision } = await this.store.list(collectionPrefix(this.store, type, namespace));
    return { items: items.map((kv) => decodeStored(kv, type)), revision };
  }
}
