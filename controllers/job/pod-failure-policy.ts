import type { Pod } from '../../src/api/index.js';

/** What a matching rule of `spec.podFailurePolicy` does with a failed pod (upstream's actions). */
export type FailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

interface Rule {
  readonly action: FailureAction;
  readonly onExitCodes?: { readonly containerName?: string; readonly operator: 'In' | 'NotIn'; readonly values: readonly number[] };
  readonly onPodConditions?: readonly { readonly type: string; readonly status?: string }[];
}

export interface PolicyMatch {
  readonly action: FailureAction;
  /** The message of a FailJob (the Job's FailureTarget/Failed condition), as upstream words it. */
  readonly message: string;
}

/**
 * The first rule of the policy that matches a failed pod, as upstream evaluates them: exit codes
 * of its terminated containers (init containers first; 0 never matches), or a pod condition of the
 * type and status. No rule matching: undefined (the failure counts toward the backoff limit).
 */
export function matchPodFailurePolicy(policy: unknown, pod: Pod): PolicyMatch | undefined {
  const rules = ((policy as { rules?: Rule[] } | undefined)?.rules ?? []) as Rule[];
  const name = pod.metadata.name;
  for (const [i, rule] of rules.entries()) {
    if (rule.onExitCodes) {
      const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])] as unknown as ContainerStatus[];
      for (const status of statuses) {
        if (rule.onExitCodes.containerName !== undefined && status.name !== rule.onExitCodes.containerName) continue;
        const code = status.state?.terminated?.exitCode;
        if (code === undefined || code === 0) continue;
        const listed = rule.onExitCodes.values.includes(code);
        if (rule.onExitCodes.operator === 'In' ? listed : !listed) {
          return { action: rule.action, message: `Container ${status.name} for pod ${pod.metadata.namespace}/${name} failed with exit code ${code} matching ${rule.action} rule at index ${i}` };
        }
      }
    }
    if (rule.onPodConditions) {
      for (const pattern of rule.onPodConditions) {
        const condition = pod.status?.conditions?.find((c) => c.type === pattern.type);
        if (condition && condition.status === (pattern.status ?? 'True')) {
          return { action: rule.action, message: `Pod ${pod.metadata.namespace}/${name} has condition ${pattern.type} matching ${rule.action} rule at index ${i}` };
        }
      }
    }
  }
  return undefined;
}

interface ContainerStatus {
  readonly name: string;
  readonly restartCount?: number;
  readonly state?: { readonly terminated?: { readonly exitCode?: number; readonly finishedAt?: string } };
}

/** When the pod ended: the latest finish of its containers, else its Ready condition's last change, else undefined. */
export function finishTimeOf(pod: Pod): number | undefined {
  let latest: number | undefined;
  for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])] as unknown as ContainerStatus[]) {
    const at = status.state?.terminated?.finishedAt;
    if (at !== undefined) latest = Math.max(latest ?? 0, Date.parse(at));
  }
  if (latest !== undefined) return latest;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  return ready === undefined ? undefined : Date.parse(ready);
}

/** Container restarts of a pod (a restartPolicy OnFailure Job counts them as failures). */
export function restartsOf(pod: Pod): number {
  let sum = 0;
  for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])] as unknown as ContainerStatus[]) sum += status.restartCount ?? 0;
  return sum;
}
