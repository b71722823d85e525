import type { EtcdStore, EtcdStoreOptions } from './etcd.js';

/**
 * Opens an etcd-backed store, loading the etcd client (etcd3, gRPC, protobufjs: about 28 MiB of
 * memory) only then: a server on sqlite or memory never pays for it.
 */
export async function openEtcdStore<V = Uint8Array>(options: EtcdStoreOptions<V>): Promise<EtcdStore<V>> {
  const etcd = await import('./etcd.js');
  return etcd.openEtcdStore<V>(options);
}
