import { filter, type Observable } from 'rxjs';
import { isStatusError } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { requeueAfter } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { bootstrapToken, isExpired, SYSTEM_NAMESPACE } from './bootstrap-tokens.js';

export interface TokenCleanerOptions {
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `tokencleaner`).
const NAME = 'token-cleaner-controller';
/** Timers are bounded: a token expiring in a year is looked at again within a day. */
const MAX_WAIT_MS = 24 * 3600_000;

/**
 * Deletes bootstrap token Secrets of the system namespace once their `expiration` has passed
 * (an expiration that is no time counts as passed), as Kubernetes' token cleaner: each is looked
 * at when it changes and again when it expires.
 */
export function tokenCleaner(ctx: ControllerContext, options: TokenCleanerOptions = {}): Observable<ControllerResult<unknown>> {
  const now = options.now ?? Date.now;
  const secrets = ctx.informers.informer(builtin.secrets, { namespace: SYSTEM_NAMESPACE });
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: secrets.events$.pipe(filter((event) => event.type !== 'deleted')), synced$: secrets.synced$ },
    reconcile: async (key) => {
      const secret = secrets.store.get(key);
      const token = secret && !secret.metadata.deletionTimestamp ? bootstrapToken(secret) : undefined;
      if (!secret || !token || token.expiresAt === undefined) return;
      const at = now();
      if (!isExpired(token, at)) return requeueAfter(Math.min(token.expiresAt - at, MAX_WAIT_MS));
      try {
        await ctx.client.delete(builtin.secrets, secret.metadata.name!, { namespace: SYSTEM_NAMESPACE, preconditions: { uid: secret.metadata.uid!, resourceVersion: secret.metadata.resourceVersion! } });
      } catch (error) {
        // Gone, or changed since (a new expiration): its own event judges it again.
        if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
        throw error;
      }
    },
  });
}
