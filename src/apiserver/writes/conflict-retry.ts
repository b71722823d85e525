import type { HandlerContext } from '../request/index.js';

/**
 * A livelock guard, not a budget: no real race loses this often. Kubernetes' GuaranteedUpdate
 * has no count at all; this one only turns a write that can never win (a bug) into a 409.
 */
const MAX_TRIES = 100;

/**
 * Whether an unconditional write (no resourceVersion, no precondition) that lost the store's
 * compare-and-swap to another writer tries again, on the newer object. As Kubernetes'
 * GuaranteedUpdate, it tries until it wins: the client asked for no version, so a 409 would tell
 * it nothing it could act on but sending the same request again. A fixed count of five answered
 * 409 to one `PATCH nodes/status` in five while 5,000 hollow nodes registered on a starved
 * server (each Node written by its agent, the node lifecycle and ttl controllers inside one
 * read-to-write window). It stops when the client has gone (its connection closed or the request
 * timed out): nobody would read the answer.
 */
export function triesAgain(ctx: HandlerContext, tries: number): boolean {
  return tries < MAX_TRIES && !ctx.request.raw.destroyed && !ctx.reply.raw.writableEnded;
}
