import { badRequest } from '../../api/index.js';
import { parseJsonBody } from '../handlers/body.js';
import { isDryRun } from '../handlers/body.js';
import { queryParam, type HandlerContext } from '../handlers/context.js';
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

function booleanOption(name: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw badRequest(`${name} must be a boolean, got ${JSON.stringify(value)}`);
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
  const orphan = booleanOption('orphanDependents', pick('orphanDependents'));
  if (orphan !== undefined && policy !== undefined) throw badRequest('orphanDependents and propagationPolicy cannot both be set');
  const grace = pick('gracePeriodSeconds');
  if (grace !== undefined && !/^\d+$/.test(String(grace))) throw badRequest('gracePeriodSeconds must be a non-negative integer');
  const bodyDryRun = body['dryRun'];
  if (bodyDryRun !== undefined && !(Array.isArray(bodyDryRun) && bodyDryRun.every((v) => v === 'All'))) {
    throw badRequest('dryRun must be a list whose only accepted value is "All"');
  }
  const dryRun = isDryRun(queryParam(ctx, 'dryRun')) || (Array.isArray(bodyDryRun) && bodyDryRun.length > 0);
  const unsafe = booleanOption(UNSAFE, pick(UNSAFE)) ?? false;
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
