import { join } from 'node:path';
import type { ValueCodec } from './value-codec.js';
import { invalid } from './storage-error.js';
import { MemoryStore } from './memory.js';
import { openEtcdStore } from './open-etcd.js';
import { ExpirySweep, type ExpirySweepOptions } from './expiry-sweep.js';
import { Retention, type RetentionOptions } from './retention.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './store.js';

export type BackendName = 'sqlite' | 'etcd' | 'memory';

export interface OpenStoreOptions<V> {
  backend: BackendName;
  /** sqlite: the folder holding `state.db`. */
  dataDir?: string;
  /** etcd: client endpoints, e.g. `http://127.0.0.1:2379`. */
  etcdServers?: string[];
  prefix?: string;
  codec?: ValueCodec<V>;
  /** History kept for watches; `false` disables compaction (etcd's own compactor may run). */
  retention?: RetentionOptions | false;
  /**
   * The sweep that deletes keys whose time to live ran out (sqlite, memory; etcd's leases need
   * none); `false`: none runs, and such keys stay until someone calls `store.expire()`.
   */
  expiry?: ExpirySweepOptions | false;
}

export interface OpenedStore<V> {
  store: Store<V>;
  retention: Retention | undefined;
  expiry: ExpirySweep | undefined;
  close(): Promise<void>;
}

/** Opens the configured backend with its retention policy (5 minutes by default) and its expiry sweep running. */
export async function openStore<V = Uint8Array>(options: OpenStoreOptions<V>): Promise<OpenedStore<V>> {
  const common = { ...(options.prefix ? { prefix: options.prefix } : {}), ...(options.codec ? { codec: options.codec } : {}) };
  let store: Store<V>;
  switch (options.backend) {
    case 'memory':
      store = new MemoryStore<V>(common);
      break;
    case 'sqlite':
      if (!options.dataDir) throw invalid('the sqlite backend needs a data dir');
      store = new SqliteStore<V>({ path: join(options.dataDir, 'state.db'), ...common });
      break;
    case 'etcd': {
      if (!options.etcdServers?.length) throw invalid('the etcd backend needs at least one server');
      store = await openEtcdStore<V>({ endpoints: options.etcdServers, ...common });
      break;
    }
    default:
      throw invalid(`unknown storage backend ${JSON.stringify(options.backend)}: use sqlite, etcd or memory`);
  }
  const retention = options.retention === false ? undefined : new Retention(store as Store<unknown>, options.retention).start();
  const expiry = options.expiry === false || store.backend === 'etcd' ? undefined : new ExpirySweep(store as Store<unknown>, options.expiry).start();
  return {
    store,
    retention,
    expiry,
    async close() {
      retention?.stop();
      expiry?.stop();
      await store.close();
    },
  };
}
