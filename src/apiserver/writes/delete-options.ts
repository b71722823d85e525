import { badRequest, booleanParam, notABoolean } from '../../api/index.js';
import { parseJsonBody, dryRunOf, queryParam, type HandlerContext } from '../request/index.js';
import { isJsonObject } from './json-value.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** DeleteOptions as svc reads them from the body (optional) and the query; the body wins. */
export interface DeleteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: PropagationPolicy;
  /** Whether `orphanDependents` was given, and its value (kept for the 202 of the legacy form). */
  readonly orphanDependents?: boolean;
  readonly gracePeriodSeconds?: number;
  readonly dryRun: boolean;
  /** `ignoreStoreReadErrorWithClusterBreakingPotential`: force-delete a corrupt object. */
  readonly unsafeCorruptDelete: boolean;
}

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);
export const UNSAFE_DELETE_GATE = 'AllowUnsafeMalformedObjectDeletion';
const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/** A boolean option: a JSON boolean in the body, or a query parameter read as strconv.ParseBool does. */
function booleanOption(ctx: HandlerContext, body: Readonly<Record<string, unknown>>, name: string): boolean | undefined {
  const given = body[name];
  if (given !== undefined && given !== null) {
    if (typeof given !== 'boolean') throw badRequest(`${name} must be a boolean, got ${JSON.stringify(given)}`);
    return given;
  }
  const text = queryParam(ctx, name);
  if (text === '') throw notABoolean(name, text);
  return booleanParam(name, text);
}

/** Reads and checks the options of a delete or deletecollection; anything malformed → 400. */
export function deleteOptionsOf(ctx: HandlerContext): DeleteOptions {
  const body = parseJsonBody(ctx) ?? {};
  const pick = (name: string): unknown => body[name] ?? queryParam(ctx, name);

  const preconditions = body['preconditions'];
  if (preconditions !== undefined && preconditions !== null) {
    if (!isJsonObject(preconditions)) throw badRequest('preconditions must be an object');
    for (const key of ['uid', 'resourceVersion']) {
      if (preconditions[key] !== undefined && preconditions[key] !== null && typeof preconditions[key] !== 'string') {
        throw badRequest(`preconditions.${key} must be a string`);
      }
    }
  }
  const policy = pick('propagationPolicy');
  if (policy !== undefined && !POLICIES.has(String(policy))) {
    throw badRequest(`propagationPolicy must be one of Orphan, Background, Foreground, got ${JSON.stringify(policy)}`);
  }
  const orphan = booleanOption(ctx, body, 'orphanDependents');
  if (orphan !== undefined && policy !== undefined) throw badRequest('orphanDependents and propagationPolicy cannot both be set');
  const grace = pick('gracePeriodSeconds');
  if (grace !== undefined && !/^\d+$/.test(String(grace))) throw badRequest('gracePeriodSeconds must be a non-negative integer');
  const bodyDryRun = body['dryRun'];
  if (bodyDryRun !== undefined && !(Array.isArray(bodyDryRun) && bodyDryRun.every((v) => v === 'All'))) {
    throw badRequest('dryRun must be a list whose only accepted value is "All"');
  }
  const dryRun = dryRunOf(ctx) || (Array.isArray(bodyDryRun) && bodyDryRun.length > 0);
  const unsafe = booleanOption(ctx, body, UNSAFE) ?? false;
  if (unsafe) {
    if (ctx.featureGates[UNSAFE_DELETE_GATE] !== true) {
      throw badRequest(`${UNSAFE} needs the feature gate ${UNSAFE_DELETE_GATE}=true`);
    }
    const others = [
      preconditions != null && Object.keys(preconditions).length > 0 ? 'preconditions' : undefined,
      policy !== undefined ? 'propagationPolicy' : undefined,
      orphan !== undefined ? 'orphanDependents' : undefined,
      grace !== undefined ? 'gracePeriodSeconds' : undefined,
      dryRun ? 'dryRun' : undefined,
    ].filter((name) => name !== undefined);
    if (others.length > 0) throw badRequest(`${UNSAFE} may not be set together with ${others.join(', ')}`);
  }
  const pre = isJsonObject(preconditions) ? (preconditions as DeleteOptions['preconditions']) : undefined;
  // orphanDependents is the legacy spelling: true is Orphan, false Background (as Kubernetes maps it).
  const resolved = (policy as PropagationPolicy | undefined) ?? (orphan === undefined ? undefined : orphan ? 'Orphan' : 'Background');
  return {
    ...(pre ? { preconditions: pre } : {}),
    ...(resolved ? { propagationPolicy: resolved } : {}),
    ...(orphan !== undefined ? { orphanDependents: orphan } : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: Number(grace) } : {}),
    dryRun,
    unsafeCorruptDelete: unsafe,
  };
}
