import { z } from 'zod';
import {
  badRequest,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  invalid,
  notFound,
  serviceUnavailable,
  rfc3339,
  AUTHENTICATION_GROUP,
  type FieldCause,
  type ObjectMeta,
} from '../../api/index.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';

/**
 * TokenRequest (`POST .../serviceaccounts/<name>/token`): mints a token for a service account,
 * optionally bound to a pod or secret of its namespace, as `kubectl create token` asks.
 */

const UPSTREAM_API_VERSION = 'authentication.k8s.io/v1';
const API_VERSION = `${AUTHENTICATION_GROUP}/v1`;

/** Kubernetes' bounds: at least 10 minutes, at most 2^32 seconds; one hour when unset. */
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;
export const DEFAULT_EXPIRATION_SECONDS = 3600;

const boundObjectRefSchema = z.object({
  kind: z.string().optional(),
  apiVersion: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
});

// kubectl sends the empty fields as null.
export const tokenRequestSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.looseObject({}).nullish(),
  spec: z
    .object({
      audiences: z.array(z.string()).nullish(),
      expirationSeconds: z.number().int().nullish(),
      boundObjectRef: boundObjectRefSchema.nullish(),
    })
    .nullish(),
  status: z.unknown().optional(),
});
export type TokenRequestBody = z.infer<typeof tokenRequestSchema>;

/** A stored object as the token request needs it. */
export interface StoredObject {
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
}

export interface TokenRequestInput {
  readonly namespace: string;
  /** The service account's name (the path's). */
  readonly name: string;
  /** The decoded request body. */
  readonly body: unknown;
  /** Reads an object of the namespace from the store (most recent). */
  readonly get: (kind: 'ServiceAccount' | 'Pod' | 'Secret', namespace: string, name: string) => Promise<StoredObject | undefined>;
  /** `?dryRun=All`: everything is checked, but no token is signed. */
  readonly dryRun?: boolean;
}

const BOUND_KINDS = ['Pod', 'Secret'] as const;

/** The TokenRequest answered for `input`: its spec with defaults filled in, and the token in its status. */
export async function issueTokenRequest(tokens: ServiceAccountTokens, input: TokenRequestInput): Promise<Record<string, unknown>> {
  if (!tokens.canIssue) throw serviceUnavailable('this server has no service-account signing key: start it with --service-account-signing-key-file');
  const parsed = tokenRequestSchema.safeParse(input.body ?? {});
  if (!parsed.success) throw badRequest(`the TokenRequest cannot be decoded: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const body = parsed.data;
  const apiVersion = body.apiVersion === UPSTREAM_API_VERSION ? UPSTREAM_API_VERSION : API_VERSION;
  if (body.apiVersion !== undefined && body.apiVersion !== UPSTREAM_API_VERSION && body.apiVersion !== API_VERSION) {
    throw badRequest(`apiVersion ${JSON.stringify(body.apiVersion)} is not ${API_VERSION} (or ${UPSTREAM_API_VERSION})`);
  }
  if (body.kind !== undefined && body.kind !== 'TokenRequest') throw badRequest(`kind ${JSON.stringify(body.kind)} is not TokenRequest`);

  const spec = body.spec ?? {};
  const audiences = spec.audiences && spec.audiences.length > 0 ? spec.audiences : [...tokens.audiences];
  let expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  const causes: FieldCause[] = [];
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) causes.push(fieldInvalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) causes.push(fieldInvalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  audiences.forEach((a, i) => a === '' && causes.push(fieldInvalid(`spec.audiences[${i}]`, a, 'must not be empty')));
  const ref = spec.boundObjectRef ?? undefined;
  if (ref) {
    if (!ref.kind) causes.push(fieldRequired('spec.boundObjectRef.kind'));
    else if (!(BOUND_KINDS as readonly string[]).includes(ref.kind)) causes.push(fieldNotSupported('spec.boundObjectRef.kind', ref.kind, BOUND_KINDS));
    if (ref.apiVersion !== undefined && ref.apiVersion !== '' && ref.apiVersion !== 'v1') causes.push(fieldNotSupported('spec.boundObjectRef.apiVersion', ref.apiVersion, ['v1']));
    if (!ref.name) causes.push(fieldRequired('spec.boundObjectRef.name'));
  }
  if (causes.length > 0) throw invalid({ group: AUTHENTICATION_GROUP, kind: 'TokenRequest' }, input.name, causes);
  // The server's cap applies quietly, as Kubernetes' does: the answer says what was granted.
  if (tokens.maxExpirationSeconds > 0) expirationSeconds = Math.min(expirationSeconds, tokens.maxExpirationSeconds);

  const account = await input.get('ServiceAccount', input.namespace, input.name);
  if (!account) throw notFound({ group: '', resource: 'serviceaccounts' }, input.name);
  let bound: { kind: 'Pod' | 'Secret'; name: string; uid: string } | undefined;
  if (ref) {
    const kind = ref.kind as 'Pod' | 'Secret';
    const object = await input.get(kind, input.namespace, ref.name!);
    const resource = kind === 'Pod' ? 'pods' : 'secrets';
    if (!object) throw notFound({ group: '', resource }, ref.name!);
    if (ref.uid && ref.uid !== object.metadata.uid) {
      throw badRequest(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (kind === 'Pod') {
      const podSpec = (object.spec ?? {}) as { serviceAccountName?: string; serviceAccount?: string };
      const runsAs = podSpec.serviceAccountName || podSpec.serviceAccount || 'default';
      if (runsAs !== input.name) throw badRequest(`cannot bind token for serviceaccount "${input.name}" to pod running with different serviceaccount name.`);
    }
    bound = { kind, name: ref.name!, uid: object.metadata.uid ?? '' };
  }

  const grant = {
    namespace: input.namespace,
    serviceAccount: { name: input.name, uid: account.metadata.uid ?? '' },
    audiences,
    expirationSeconds,
    ...(bound?.kind === 'Pod' ? { pod: bound } : {}),
    ...(bound?.kind === 'Secret' ? { secret: bound } : {}),
  };
  const issued = input.dryRun ? { token: '', expiresAt: Math.floor(Date.now() / 1000) + expirationSeconds } : tokens.issue(grant);
  return {
    kind: 'TokenRequest',
    apiVersion,
    metadata: { name: input.name, namespace: input.namespace, creationTimestamp: null },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: bound ? { kind: bound.kind, apiVersion: 'v1', name: bound.name, uid: bound.uid } : null,
    },
    status: { token: issued.token, expirationTimestamp: rfc3339(issued.expiresAt * 1000) },
  };
}
