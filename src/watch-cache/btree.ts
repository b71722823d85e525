import { createRequire } from 'node:module';

// sorted-btree is CommonJS with `exports.default`; bundlers and Node disagree on what a default
// import of it yields, so require it the one way both agree on (as src/storage/memory.ts does).
const { default: BTree } = createRequire(import.meta.url)('sorted-btree') as typeof import('sorted-btree');
type BTree<K, V> = import('sorted-btree').default<K, V>;

/**
 * The cache's state: key → current version, in key order. `clone()` is O(1) copy-on-write, which
 * is what makes a snapshot per applied batch affordable.
 */
export type Tree<V> = BTree<string, V>;

export const newTree = <V>(): Tree<V> => new BTree<string, V>();

/**
 * The first string after every key that starts with `prefix`. Keys are printable ASCII (see
 * src/storage/keys.ts), so bumping the last character is enough.
 */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
