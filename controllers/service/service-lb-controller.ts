import type { Observable, SchedulerLike } from 'rxjs';
import type { Service } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

export interface ServiceLbControllerOptions {
  /** `--concurrent-service-syncs` (1). */
  readonly concurrency?: number;
  /** `--cloud-provider`: svc ships none, so any value still provisions nothing; it is named in the Event. */
  readonly cloudProvider?: string | undefined;
  readonly scheduler?: SchedulerLike;
}

/** The reason of the Warning a LoadBalancer Service gets (upstream's service controller reports failed syncs so). */
export const NO_LOAD_BALANCER_REASON = 'SyncLoadBalancerFailed';

/**
 * The service controller (kube-controller-manager's `service-lb-controller`) of a cluster without
 * a cloud provider: no load balancer can be made, so a LoadBalancer Service keeps its empty
 * `status.loadBalancer` and gets one Warning Event saying why — where upstream's manager, with
 * no cloud, only logs it. A Service with a `loadBalancerClass` is another implementation's
 * (MetalLB, a k3s-style service load balancer) and is left alone. Its NodePorts and cluster IP
 * (the API server's) work as for a NodePort Service.
 */
export function serviceLbController(ctx: ControllerContext, options: ServiceLbControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const services = ctx.informers.informer(builtin.services);
  // Warned once per Service (key → uid) while it stays a LoadBalancer: a Service's every update would otherwise repeat it.
  const warned = new Map<string, string>();
  return controller<unknown>({
    ...ctx.controllerDefaults(ctx.name),
    name: ctx.name,
    for: services,
    concurrency: options.concurrency ?? 1,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    reconcile: (key) => {
      const service = services.store.get(key);
      if (!service || !wantsDefaultLoadBalancer(service) || service.metadata.deletionTimestamp !== undefined) {
        warned.delete(key);
        return;
      }
      const uid = service.metadata.uid!;
      if (warned.get(key) === uid) return;
      warned.set(key, uid);
      const { name, namespace, resourceVersion } = service.metadata;
      const provider = options.cloudProvider ? `the cloud provider ${JSON.stringify(options.cloudProvider)} is not one svc has` : 'no cloud provider is configured (--cloud-provider)';
      ctx.events.record(
        { apiVersion: 'v1', kind: 'Service', name: name!, namespace, uid, resourceVersion },
        'Warning',
        NO_LOAD_BALANCER_REASON,
        `Error syncing load balancer: ${provider}, so no load balancer is made: status.loadBalancer stays empty; the Service's NodePorts and cluster IP work`,
      );
    },
  });
}

/** A LoadBalancer Service without a `loadBalancerClass`: the default (cloud) implementation's. */
const wantsDefaultLoadBalancer = (service: Service): boolean => service.spec?.type === 'LoadBalancer' && !service.spec.loadBalancerClass;
