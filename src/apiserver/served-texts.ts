/**
 * The watch cache's bytes of the versions this server wrote lately, by their JSON text: a write's
 * answer (`answerTextOf`) is the same text, so a protobuf answer takes the version's message bytes
 * from the cache (`renderObject`), where a protobuf watcher of the type (the controller manager's
 * informers) has already encoded them or will find them encoded, instead of converting the answer
 * once more. A node's Lease renewal is answered in protobuf and sent to a protobuf watch: one
 * conversion of the Lease instead of two.
 *
 * Bounded by bytes (the texts are the keys); large objects are not kept, since a write of one is
 * rare and its answer's conversion a small share of its cost.
 */
const texts = new Map<string, Uint8Array>();
let heldChars = 0;
const MAX_HELD_CHARS = 2 * 1024 * 1024;
const MAX_TEXT_CHARS = 16 * 1024;

/** Notes the cache's bytes of a version written by this server (`text` is its served JSON). */
export function rememberServedText(text: string, bytes: Uint8Array): void {
  if (text.length > MAX_TEXT_CHARS || texts.has(text)) return;
  texts.set(text, bytes);
  heldChars += text.length;
  // Oldest first: a Map iterates in insertion order.
  for (const oldest of texts.keys()) {
    if (heldChars <= MAX_HELD_CHARS) break;
    texts.delete(oldest);
    heldChars -= oldest.length;
  }
}

/** The cache's bytes of the version whose served JSON is `text`, while it is remembered. */
export const servedBytesOfText = (text: string): Uint8Array | undefined => texts.get(text);
