import { rfc3339, type HorizontalPodAutoscaler } from '../../src/api/index.js';

/**
 * The autoscaler's conditions (AbleToScale, ScalingActive, ScalingLimited): a condition keeps its
 * lastTransitionTime while its status stays, as upstream's setConditionInList.
 */

export type HpaConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

export type HpaCondition = NonNullable<NonNullable<HorizontalPodAutoscaler['status']>['conditions']>[number];

export class HpaConditions {
  readonly #list: HpaCondition[];

  constructor(
    previous: readonly HpaCondition[] | undefined,
    private readonly nowMs: number,
  ) {
    this.#list = [...(previous ?? [])];
  }

  set(type: HpaConditionType, status: 'True' | 'False', reason: string, message: string): void {
    const at = this.#list.findIndex((c) => c.type === type);
    const old = at >= 0 ? this.#list[at] : undefined;
    const lastTransitionTime = old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(this.nowMs);
    const next = { type, status, lastTransitionTime, reason, message };
    if (at >= 0) this.#list[at] = next;
    else this.#list.push(next);
  }

  get list(): HpaCondition[] {
    return this.#list;
  }
}
