import { rfc3339, type CustomResourceDefinitionStatus } from '../../api/index.js';

export type Condition = NonNullable<CustomResourceDefinitionStatus['conditions']>[number];

/** A condition as the server sets it (the time is filled in by setCondition). */
export interface ConditionChange {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}


/**
 * `conditions` with `next` set: its lastTransitionTime moves only when its status changes, so that
 * a condition rewritten with the same status reads as unchanged.
 */
export function setCondition(conditions: readonly Condition[], next: ConditionChange, now = new Date()): Condition[] {
  const before = conditions.find((c) => c.type === next.type);
  const lastTransitionTime = before && before.status === next.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(now);
  const updated: Condition = { ...next, lastTransitionTime };
  return before ? conditions.map((c) => (c.type === next.type ? updated : c)) : [...conditions, updated];
}

/** Whether a CRD's status says `type` is True. */
export const isTrue = (status: CustomResourceDefinitionStatus | undefined, type: string) =>
  (status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
