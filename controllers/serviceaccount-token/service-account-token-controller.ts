import { filter, mergeMap, type Observable } from 'rxjs';
import {
  isStatusError,
  SERVICE_ACCOUNT_NAME_ANNOTATIONS,
  SERVICE_ACCOUNT_TOKEN_SECRET_TYPES,
  SERVICE_ACCOUNT_UID_ANNOTATIONS,
  type Secret,
  type ServiceAccount,
} from '../../src/api/index.js';
import { algorithmForKey, LEGACY_ISSUER, serviceAccountUserName, signJws, type SigningKey } from '../../src/apiserver/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface ServiceAccountTokenControllerOptions {
  /** `--service-account-private-key-file`: the key tokens are signed with (the API server must trust its public half). */
  readonly signingKey: SigningKey;
  /** `--root-ca-file` (else the manager's CA): written as `ca.crt`; without it no `ca.crt` is written. */
  readonly rootCa?: string | undefined;
  /** `--concurrent-serviceaccount-token-syncs` (5). */
  readonly concurrency?: number | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `serviceaccount-token`).
const NAME = 'serviceaccount-token-controller';
const TOKEN_KEY = 'token';
const CA_KEY = 'ca.crt';
const NAMESPACE_KEY = 'namespace';

const isTokenSecret = (secret: Secret) => (SERVICE_ACCOUNT_TOKEN_SECRET_TYPES as readonly (string | undefined)[]).includes(secret.type);
const annotation = (secret: Secret, keys: readonly string[]) => {
  const at = keys.findIndex((key) => secret.metadata.annotations?.[key] !== undefined);
  return at < 0 ? undefined : { index: at, value: secret.metadata.annotations![keys[at]!]! };
};
const keyOf = (object: { metadata: { namespace?: string | undefined; name?: string | undefined } }) => `${object.metadata.namespace}/${object.metadata.name}`;
const decoded = (secret: Secret, key: string) => (secret.data?.[key] === undefined ? undefined : Buffer.from(secret.data[key]!, 'base64').toString('utf8'));
const encoded = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/**
 * Fills each Secret of type `svc.io/service-account-token` (or `kubernetes.io/service-account-token`)
 * that names a ServiceAccount (`kubernetes.io/service-account.name`) with a legacy token for that
 * account (`token`: a JWT without audience or expiry, signed with the manager's key), the root CA
 * (`ca.crt`) and its namespace (`namespace`), and records the account's uid on it. A secret whose
 * account is gone, or was made again with another uid, is deleted, as are an account's secrets
 * when it is deleted. A `token` already there is kept (it is only ever written once); `ca.crt` is
 * put back when it differs from the root CA.
 */
export function serviceAccountTokenController(ctx: ControllerContext, options: ServiceAccountTokenControllerOptions): Observable<ControllerResult<unknown>> {
  const secrets = ctx.informers.informer(builtin.secrets);
  const accounts = ctx.informers.informer(builtin.serviceAccounts);
  const alg = algorithmForKey(options.signingKey.key);
  // An account added or deleted: every token secret of its namespace that names it.
  const secretsOf = (account: ServiceAccount) =>
    secrets.store
      .byIndex('namespace', account.metadata.namespace ?? '')
      .filter((secret) => isTokenSecret(secret) && annotation(secret, SERVICE_ACCOUNT_NAME_ANNOTATIONS)?.value === account.metadata.name)
      .map(keyOf);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: secrets.events$.pipe(filter((event) => isTokenSecret(event.object))), synced$: secrets.synced$ },
    watches: [
      {
        events$: accounts.events$.pipe(
          filter((event) => event.type === 'added' || event.type === 'deleted'),
          mergeMap((event) => secretsOf(event.object)),
        ),
        synced$: accounts.synced$,
      },
    ],
    concurrency: options.concurrency ?? 5,
    reconcile: async (key) => {
      const secret = secrets.store.get(key);
      if (!secret || !isTokenSecret(secret) || secret.metadata.deletionTimestamp) return;
      const named = annotation(secret, SERVICE_ACCOUNT_NAME_ANNOTATIONS);
      if (!named) return; // the API refuses such a secret; one stored before is left alone
      const namespace = secret.metadata.namespace!;
      const wantedUid = annotation(secret, SERVICE_ACCOUNT_UID_ANNOTATIONS)?.value;
      const account = await accountOf(ctx.client, accounts.store.get(`${namespace}/${named.value}`), namespace, named.value);
      if (!account || (wantedUid !== undefined && wantedUid !== account.metadata.uid)) {
        await deleteSecret(ctx.client, secret);
        return;
      }
      const data: Record<string, string> = {};
      if (!decoded(secret, TOKEN_KEY)) data[TOKEN_KEY] = encoded(legacyToken(options.signingKey, alg, secret, account));
      if (options.rootCa && decoded(secret, CA_KEY) !== options.rootCa) data[CA_KEY] = encoded(options.rootCa);
      if (!decoded(secret, NAMESPACE_KEY)) data[NAMESPACE_KEY] = encoded(namespace);
      const uidKey = SERVICE_ACCOUNT_UID_ANNOTATIONS[named.index]!;
      if (Object.keys(data).length === 0 && wantedUid !== undefined) return;
      const annotations = { ...secret.metadata.annotations, [uidKey]: account.metadata.uid! };
      // An update at the cached resourceVersion: a secret changed meanwhile is a 409, retried on the fresh copy.
      await ctx.client.update(builtin.secrets, { ...secret, metadata: { ...secret.metadata, annotations }, data: { ...secret.data, ...data } }, { namespace });
    },
  });
}

/** The account, from the cache or, when the cache has not seen it yet (a secret made right after it), from the server. */
async function accountOf(client: Client, cached: ServiceAccount | undefined, namespace: string, name: string): Promise<ServiceAccount | undefined> {
  if (cached) return cached;
  try {
    return await client.get(builtin.serviceAccounts, name, { namespace });
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return undefined;
    throw error;
  }
}

async function deleteSecret(client: Client, secret: Secret): Promise<void> {
  try {
    await client.delete(builtin.secrets, secret.metadata.name!, { namespace: secret.metadata.namespace, preconditions: { uid: secret.metadata.uid! } });
  } catch (error) {
    // Gone already, or a new secret of that name (its own reconcile judges it).
    if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
    throw error;
  }
}

/** A legacy token, with Kubernetes' claims: no audience, no expiry; good while the secret holds it. */
function legacyToken(key: SigningKey, alg: ReturnType<typeof algorithmForKey>, secret: Secret, account: ServiceAccount): string {
  const namespace = secret.metadata.namespace!;
  const claims = {
    iss: LEGACY_ISSUER,
    'kubernetes.io/serviceaccount/namespace': namespace,
    'kubernetes.io/serviceaccount/secret.name': secret.metadata.name!,
    'kubernetes.io/serviceaccount/service-account.name': account.metadata.name!,
    'kubernetes.io/serviceaccount/service-account.uid': account.metadata.uid!,
    sub: serviceAccountUserName(namespace, account.metadata.name!),
  };
  return signJws(claims, key.key, alg, key.kid);
}
