import { Observable, filter, mergeMap } from 'rxjs';
import { isStatusError, NODE_TTL_ANNOTATION } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { TTL_BOUNDARIES, ttlStep } from './ttl-boundaries.js';

/** The annotation node agents read their object cache TTL from (seconds), upstream's key. */
export { NODE_TTL_ANNOTATION };

const NAME = 'ttl-controller';

/**
 * The ttl controller: every Node gets `node.alpha.kubernetes.io/ttl` with the TTL its cluster's
 * size calls for (see `TTL_BOUNDARIES`). Nodes added or removed move the count; when the step
 * changes, every node is judged again. A node whose annotation is right is not written.
 */
export function ttlController(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  const nodes = ctx.informers.informer(builtin.nodes);
  let step = 0;
  const ttl = () => String(TTL_BOUNDARIES[step]!.ttlSeconds);
  const recount$ = nodes.events$.pipe(
    filter((event) => event.type === 'added' || event.type === 'deleted'),
    mergeMap(() => {
      // The count and the keys (a Node's key is its name) read no object: a pass over every node per
      // registration made thousands of nodes joining quadratic.
      const next = ttlStep(nodes.store.size, step);
      if (next === step) return [];
      step = next;
      return [...nodes.store.keys()];
    }),
  );
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: nodes,
    watches: [{ events$: recount$, synced$: nodes.synced$ }],
    stop$: ctx.stop$,
    reconcile: async (name) => {
      const node = nodes.store.get(name);
      const want = ttl();
      if (!node || node.metadata.annotations?.[NODE_TTL_ANNOTATION] === want) return;
      try {
        await ctx.client.patch(builtin.nodes, name, { metadata: { annotations: { [NODE_TTL_ANNOTATION]: want } } });
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
    },
  });
}
