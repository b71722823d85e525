/**
 * The watch cache's bytes of the versions this server wrote lately, by their JSON text: a write's
 * answer (`answerTextOf`) is the same text, so a protobuf answer takes the version's message bytes
 * from the cache (`renderObject`), where a protobuf watcher of the type (the controller manager's
 * informers) has already encoded them or will find them encoded, instead of converting the answer
 * once more. A node's Lease renewal is answered in protobuf and sent to a protobuf watch: one
 * conversion of the Lease instead of two.
 *
 * One table per server, owned by its `ResourceCaches` (filled by its decoders, read by its
 * answers, emptied when it stops): two servers in one process (tests, an embedding program) never
 * hold each other's bytes, and a stopped server's bytes go with it.
 *
 * Bounded by bytes (the texts are the keys); large objects are not kept, since a write of one is
 * rare and its answer's conversion a small share of its cost.
 */
export class ServedTexts {
  readonly #texts = new Map<string, Uint8Array>();
  #heldChars = 0;
  readonly #maxHeldChars: number;
  readonly #maxTextChars: number;

  /** `maxHeldChars`: the texts kept, in characters (2 MiB); `maxTextChars`: the longest text kept (16 KiB). */
  constructor(options: { readonly maxHeldChars?: number; readonly maxTextChars?: number } = {}) {
    this.#maxHeldChars = options.maxHeldChars ?? 2 * 1024 * 1024;
    this.#maxTextChars = options.maxTextChars ?? 16 * 1024;
  }

  /** Notes the cache's bytes of a version written by this server (`text` is its served JSON). */
  remember(text: string, bytes: Uint8Array): void {
    if (text.length > this.#maxTextChars || this.#texts.has(text)) return;
    this.#texts.set(text, bytes);
    this.#heldChars += text.length;
    // Oldest first: a Map iterates in insertion order.
    for (const oldest of this.#texts.keys()) {
      if (this.#heldChars <= this.#maxHeldChars) break;
      this.#texts.delete(oldest);
      this.#heldChars -= oldest.length;
    }
  }

  /** The cache's bytes of the version whose served JSON is `text`, while it is remembered. */
  bytesOf(text: string): Uint8Array | undefined {
    return this.#texts.get(text);
  }

  /** The characters of the texts kept now (at most `maxHeldChars`). */
  get heldChars(): number {
    return this.#heldChars;
  }

  /** Forgets every text: the server stopped. */
  clear(): void {
    this.#texts.clear();
    this.#heldChars = 0;
  }
}
