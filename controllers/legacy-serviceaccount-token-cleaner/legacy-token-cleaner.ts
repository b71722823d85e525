import { filter, mergeMap, type Observable } from 'rxjs';
import {
  isStatusError,
  LEGACY_TOKEN_INVALID_SINCE_LABEL,
  LEGACY_TOKEN_LAST_USED_LABEL,
  SERVICE_ACCOUNT_NAME_ANNOTATIONS,
  SERVICE_ACCOUNT_TOKEN_SECRET_TYPES,
  type Pod,
  type Secret,
} from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { requeueAfter } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface LegacyTokenCleanerOptions {
  /** `--legacy-service-account-token-clean-up-period` (a year): unused this long, a token is made invalid; invalid this long, it is deleted. */
  readonly cleanUpPeriodMs: number;
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `legacy-service-account-token-cleaner`).
const NAME = 'legacy-serviceaccount-token-cleaner-controller';
const DAY_MS = 24 * 60 * 60 * 1000;
/** How often a secret is looked at again without a change (Kubernetes syncs once a day). */
const RECHECK_MS = DAY_MS;

const isTokenSecret = (secret: Secret) => (SERVICE_ACCOUNT_TOKEN_SECRET_TYPES as readonly (string | undefined)[]).includes(secret.type);
const accountName = (secret: Secret) => SERVICE_ACCOUNT_NAME_ANNOTATIONS.map((key) => secret.metadata.annotations?.[key]).find((name) => name !== undefined);
/** A label day (`YYYY-MM-DD`) as the ms of its start, UTC; undefined when it is no such day. */
const dayStart = (day: string | undefined) => (day !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : undefined);
const labelDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type Volume = NonNullable<NonNullable<Pod['spec']>['volumes']>[number];
/** The secrets a pod volume reads, directly or projected. */
const secretsOfVolume = (volume: Volume): (string | undefined)[] => [
  (volume.secret as { secretName?: string } | undefined)?.secretName,
  ...((volume.projected as { sources?: { secret?: { name?: string } }[] } | undefined)?.sources ?? []).map((source) => source.secret?.name),
];
/** Whether a pod uses the secret as a volume: such a token is in use, whatever its label says. */
const mounts = (pod: Pod, name: string) => (pod.spec?.volumes ?? []).some((volume) => secretsOfVolume(volume).includes(name));

/**
 * Cleans up legacy token Secrets nobody uses, as Kubernetes' LegacyServiceAccountTokenCleanUp: a
 * token Secret its ServiceAccount lists in `secrets` (the auto-generated kind; a secret made by
 * hand and not listed is left alone), mounted by no pod, whose token was last used (the API
 * server's `kubernetes.io/legacy-token-last-used` label, else the secret's creation) a clean-up
 * period ago, is labelled `kubernetes.io/legacy-token-invalid-since` (the API server then
 * refuses its token; removing the label makes it good again); one invalid for another period is
 * deleted. Each secret is looked at on every change and again once a day.
 */
export function legacyTokenCleaner(ctx: ControllerContext, options: LegacyTokenCleanerOptions): Observable<ControllerResult<unknown>> {
  const now = options.now ?? Date.now;
  const secrets = ctx.informers.informer(builtin.secrets);
  const accounts = ctx.informers.informer(builtin.serviceAccounts);
  const pods = ctx.informers.informer(builtin.pods);
  const namesOf = (namespace: string | undefined, names: readonly (string | undefined)[]) => names.filter((n): n is string => n !== undefined).map((n) => `${namespace}/${n}`);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: secrets.events$.pipe(filter((event) => isTokenSecret(event.object))), synced$: secrets.synced$ },
    watches: [
      // An account listing (or no longer listing) a secret; a pod that stopped mounting one.
      { events$: accounts.events$.pipe(mergeMap((event) => namesOf(event.object.metadata.namespace, (event.object.secrets ?? []).map((s) => s.name)))), synced$: accounts.synced$ },
      {
        events$: pods.events$.pipe(
          filter((event) => event.type === 'deleted'),
          mergeMap((event) =>
            namesOf(event.object.metadata.namespace, (event.object.spec?.volumes ?? []).flatMap(secretsOfVolume)),
          ),
        ),
        synced$: pods.synced$,
      },
    ],
    reconcile: async (key) => {
      const secret = secrets.store.get(key);
      if (!secret || !isTokenSecret(secret) || secret.metadata.deletionTimestamp) return;
      const namespace = secret.metadata.namespace!;
      const name = secret.metadata.name!;
      const account = accounts.store.get(`${namespace}/${accountName(secret) ?? ''}`);
      if (!account || !(account.secrets ?? []).some((ref) => ref.name === name)) return;
      if (pods.store.byIndex('namespace', namespace).some((pod) => mounts(pod, name))) return requeueAfter(RECHECK_MS);
      const at = now();
      const invalidSince = dayStart(secret.metadata.labels?.[LEGACY_TOKEN_INVALID_SINCE_LABEL]);
      if (invalidSince !== undefined) {
        const deleteAt = invalidSince + options.cleanUpPeriodMs;
        if (at < deleteAt) return requeueAfter(Math.min(deleteAt - at, RECHECK_MS));
        try {
          // Preconditions: a secret changed since it was judged (the mark removed, say) is judged again.
          await ctx.client.delete(builtin.secrets, name, { namespace, preconditions: { uid: secret.metadata.uid!, resourceVersion: secret.metadata.resourceVersion! } });
        } catch (error) {
          if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
          throw error;
        }
        return;
      }
      const lastUsed = dayStart(secret.metadata.labels?.[LEGACY_TOKEN_LAST_USED_LABEL]) ?? Date.parse(secret.metadata.creationTimestamp ?? '');
      const invalidAt = (Number.isNaN(lastUsed) ? at : lastUsed) + options.cleanUpPeriodMs;
      if (at < invalidAt) return requeueAfter(Math.min(invalidAt - at, RECHECK_MS));
      await ctx.client.patch(builtin.secrets, name, { metadata: { resourceVersion: secret.metadata.resourceVersion, labels: { [LEGACY_TOKEN_INVALID_SINCE_LABEL]: labelDay(at) } } }, { namespace });
      return requeueAfter(RECHECK_MS);
    },
  });
}
