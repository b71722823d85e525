import { NEVER, takeUntil, type Observable } from 'rxjs';
import type { ControllerContext } from '../context.js';
import type { ControllerResult } from '../controller.js';

/**
 * device-taint-eviction: upstream evicts pods whose ResourceClaims use devices tainted NoExecute
 * (ResourceSlices' device taints and DeviceTaintRules, dynamic resource allocation). svc serves
 * none of the resource.k8s.io types, so no pod can hold a device and there is nothing to evict:
 * behind the DRADeviceTaints gate (off by default, as upstream) the loop runs and stays idle until
 * it is stopped. docs/autoscaling.md#device-taint-eviction says what exists and what does not.
 */
export function deviceTaintEvictionController(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  return NEVER.pipe(takeUntil(ctx.stop$));
}
