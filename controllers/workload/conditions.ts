/** A workload status condition (ReplicaSet, Deployment, …): the fields upstream's conditions share. */
export interface WorkloadCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  readonly lastTransitionTime?: string | undefined;
  readonly lastUpdateTime?: string | undefined;
}

export const findCondition = <C extends WorkloadCondition>(conditions: readonly C[] | undefined, type: string): C | undefined =>
  conditions?.find((condition) => condition.type === type);

/**
 * The conditions with `condition` in place of the one of its type, as upstream's SetCondition:
 * unchanged (same status, reason and message) keeps the old one (and its times); a status left
 * as it was keeps the old transition time.
 */
export function setCondition<C extends WorkloadCondition>(conditions: readonly C[] | undefined, condition: C): C[] {
  const current = findCondition(conditions, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason && current.message === condition.message) return [...(conditions ?? [])];
  const kept = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  return [...(conditions ?? []).filter((c) => c.type !== condition.type), kept];
}

export const removeCondition = <C extends WorkloadCondition>(conditions: readonly C[] | undefined, type: string): C[] =>
  (conditions ?? []).filter((condition) => condition.type !== type);
