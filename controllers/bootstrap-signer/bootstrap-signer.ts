import { createHmac } from 'node:crypto';
import { filter, map, type Observable } from 'rxjs';
import { BOOTSTRAP_SIGNATURE_PREFIX, CLUSTER_INFO_CONFIGMAP, isStatusError, type Secret } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import { requeueAfter } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { bootstrapToken, isExpired, PUBLIC_NAMESPACE, SYSTEM_NAMESPACE, type BootstrapToken } from '../token-cleaner/index.js';

export interface BootstrapSignerOptions {
  /** The clock, in ms (tests move it). */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `bootstrapsigner`).
const NAME = 'bootstrap-signer-controller';
const KUBECONFIG_KEY = 'kubeconfig';
const CLUSTER_INFO_KEY = `${PUBLIC_NAMESPACE}/${CLUSTER_INFO_CONFIGMAP}`;
/** Timers are bounded: a token expiring in a year is looked at again within a day. */
const MAX_WAIT_MS = 24 * 3600_000;

/**
 * A detached JWS (RFC 7515 appendix F: `header..signature`) of `payload`, HS256 with the token
 * (`<id>.<secret>`) as the key, `kid` the token id: what a joining node checks `cluster-info`
 * with, knowing only its token.
 */
export function detachedSignature(payload: string, token: Pick<BootstrapToken, 'id' | 'secret'>): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: token.id })).toString('base64url');
  const body = Buffer.from(payload).toString('base64url');
  const signature = createHmac('sha256', `${token.id}.${token.secret}`).update(`${header}.${body}`).digest('base64url');
  return `${header}..${signature}`;
}

/**
 * Keeps the `cluster-info` ConfigMap of the public namespace signed, as Kubernetes' bootstrap
 * signer: one `jws-kubeconfig-<token-id>` per bootstrap token of the system namespace that is
 * valid, unexpired and marked `usage-bootstrap-signing: "true"`, over its `kubeconfig`; the
 * signatures of other tokens removed. One key: the ConfigMap, looked at when it or any token
 * changes, and again when the first signing token expires.
 */
export function bootstrapSigner(ctx: ControllerContext, options: BootstrapSignerOptions = {}): Observable<ControllerResult<unknown>> {
  const now = options.now ?? Date.now;
  const configMaps = ctx.informers.informer(builtin.configMaps, { namespace: PUBLIC_NAMESPACE, fieldSelector: `metadata.name=${CLUSTER_INFO_CONFIGMAP}` });
  const secrets = ctx.informers.informer(builtin.secrets, { namespace: SYSTEM_NAMESPACE });
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: configMaps.events$.pipe(filter((event) => event.type !== 'deleted')), synced$: configMaps.synced$ },
    watches: [{ events$: secrets.events$.pipe(filter((event) => bootstrapToken(event.object) !== undefined), map(() => CLUSTER_INFO_KEY)), synced$: secrets.synced$ }],
    reconcile: async (key) => {
      const clusterInfo = configMaps.store.get(key);
      const kubeconfig = clusterInfo?.data?.[KUBECONFIG_KEY];
      if (!clusterInfo || kubeconfig === undefined) return;
      const at = now();
      const signing = secrets.store
        .byIndex('namespace', SYSTEM_NAMESPACE)
        .map((secret: Secret) => (secret.metadata.deletionTimestamp ? undefined : bootstrapToken(secret)))
        .filter((token): token is BootstrapToken => token !== undefined && token.signing && !isExpired(token, at));
      const want = new Map(signing.map((token) => [BOOTSTRAP_SIGNATURE_PREFIX + token.id, detachedSignature(kubeconfig, token)]));
      const data: Record<string, string> = {};
      for (const [name, value] of Object.entries(clusterInfo.data ?? {})) if (!name.startsWith(BOOTSTRAP_SIGNATURE_PREFIX) || want.has(name)) data[name] = value;
      for (const [name, value] of want) data[name] = value;
      const changed = Object.keys(data).length !== Object.keys(clusterInfo.data ?? {}).length || Object.entries(data).some(([name, value]) => clusterInfo.data?.[name] !== value);
      if (changed) {
        try {
          // At the cached resourceVersion: a kubeconfig changed meanwhile is a 409, and signed on its own event.
          await ctx.client.update(builtin.configMaps, { ...clusterInfo, data }, { namespace: PUBLIC_NAMESPACE });
        } catch (error) {
          if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
          throw error;
        }
      }
      const next = Math.min(...signing.map((token) => token.expiresAt ?? Infinity));
      return Number.isFinite(next) ? requeueAfter(Math.min(Math.max(next - at, 1), MAX_WAIT_MS)) : undefined;
    },
  });
}
