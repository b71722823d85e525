import { EMPTY, merge } from 'rxjs';
import type { ControlLoop } from '../context.js';
import type { ControllerName } from './controller-names.js';
import { garbageCollector } from '../garbage-collector/index.js';
import { namespaceController } from '../namespace/index.js';
import { rootCaPublisher } from '../root-ca-publisher/index.js';
import { cronJobController } from '../cronjob/index.js';
import { jobController } from '../job/index.js';
import { podGcController } from '../podgc/index.js';
import { ttlAfterFinishedController } from '../ttl-after-finished/index.js';
import { replicaSetController } from '../replicaset/index.js';
import { replicationControllerController } from '../replicationcontroller/index.js';
import { deploymentController } from '../deployment/index.js';
import { daemonSetController } from '../daemonset/index.js';
import { statefulSetController } from '../statefulset/index.js';
import { disruptionController } from '../disruption/index.js';
import { serviceAccountController } from '../serviceaccount/index.js';
import { serviceAccountTokenController } from '../serviceaccount-token/index.js';
import { legacyTokenCleaner } from '../legacy-serviceaccount-token-cleaner/index.js';
import { bootstrapSigner } from '../bootstrap-signer/index.js';
import { tokenCleaner } from '../token-cleaner/index.js';
import { endpointsController } from '../endpoints/index.js';
import { endpointSliceController } from '../endpointslice/index.js';
import { serviceLbController } from '../service/index.js';
import { endpointSliceMirroringController } from '../endpointslice-mirroring/index.js';
import { clusterRoleAggregationController } from '../clusterrole-aggregation/index.js';
import { resourceQuotaController } from '../resourcequota/index.js';
import { nodeLifecycleController } from '../node-lifecycle/index.js';
import { taintEvictionController } from '../taint-eviction/index.js';
import { clusterCidrSets, nodeIpamController } from '../node-ipam/index.js';
import { ttlController } from '../ttl/index.js';
import { signingKeyFromPem } from '../../src/apiserver/index.js';
import type { SignerName, SigningCa } from '../../src/pki/index.js';
import { csrSigningController } from '../csrsigning/index.js';
import { csrApprovingController } from '../csrapproving/index.js';
import { csrCleanerController } from '../csrcleaner/index.js';
import { horizontalPodAutoscalerController } from '../horizontalpodautoscaler/index.js';
import { deviceTaintEvictionController } from '../device-taint-eviction/index.js';
// Storage loops (storage-loops).
import { persistentVolumeBinder, type RecyclerOptions } from '../persistentvolume-binder/index.js';
import { HostPathProvisioner, hostPathClassKeeper } from '../host-path-provisioner/index.js';
import { pvcProtectionController } from '../pvc-protection/index.js';
import { pvProtectionController } from '../pv-protection/index.js';
import { ephemeralVolumeController } from '../ephemeral-volume/index.js';
import { persistentVolumeExpander } from '../persistentvolume-expander/index.js';
import { attachDetachController } from '../attach-detach/index.js';
import { validatingAdmissionPolicyStatusController } from '../validating-admission-policy-status/index.js';

/**
 * Which control loops are built, by controller name, and how each is made from the manager's
 * settings. A name in controller-names.ts without an entry here is accepted by `--controllers`
 * and reported as not built when the manager starts.
 */

/** The options loops read, from the manager's flags (durations in ms). */
export interface LoopSettings {
  readonly concurrentNamespaceSyncs: number;
  readonly namespaceSyncPeriodMs: number;
  readonly concurrentGcSyncs: number;
  readonly minResyncPeriodMs: number;
  /** The root CA (PEM) the root CA publisher puts in every namespace; without it that loop does not run. */
  readonly rootCa?: string | undefined;
  // Batch loops (job, cronjob, ttl-after-finished, podgc); unset: kube's defaults.
  readonly concurrentJobSyncs?: number | undefined;
  readonly concurrentCronJobSyncs?: number | undefined;
  readonly concurrentTtlAfterFinishedSyncs?: number | undefined;
  /** Terminated pods kept before podgc deletes the oldest (12500); ≤ 0: never. */
  readonly terminatedPodGcThreshold?: number | undefined;
  // Workload loops (wl-replicas): --concurrent-replicaset-syncs, --concurrent-rc-syncs, --concurrent-deployment-syncs.
  readonly concurrentReplicasetSyncs?: number | undefined;
  readonly concurrentRcSyncs?: number | undefined;
  readonly concurrentDeploymentSyncs?: number | undefined;
  // Node-bound and stateful workloads (wl-nodes): --concurrent-daemonset-syncs, --concurrent-statefulset-syncs.
  readonly concurrentDaemonsetSyncs?: number | undefined;
  readonly concurrentStatefulsetSyncs?: number | undefined;
  // Service accounts and their tokens (sa-loops).
  /** `--service-account-private-key-file`'s PEM: without it the serviceaccount-token loop does not run (as kube). */
  readonly serviceAccountPrivateKey?: string | undefined;
  readonly concurrentServiceaccountTokenSyncs?: number | undefined;
  /** `--legacy-service-account-token-clean-up-period` (a year). */
  readonly legacyServiceAccountTokenCleanUpPeriodMs?: number | undefined;
  // Certificates (csr).
  /** The CA of each signer, from `--cluster-signing-*` (loaded and checked); a signer without one signs nothing. */
  readonly clusterSigning?: ReadonlyMap<SignerName, SigningCa> | undefined;
  /** `--cluster-signing-duration` (a year). */
  readonly clusterSigningDurationMs?: number | undefined;
  // Service endpoints (net-loops): --concurrent-endpoint-syncs, --endpoint-updates-batch-period, --concurrent-service-endpoint-syncs,
  // --max-endpoints-per-slice, --endpointslice-updates-batch-period, the --mirroring-* options, --concurrent-service-syncs.
  readonly concurrentEndpointSyncs?: number | undefined;
  readonly endpointUpdatesBatchPeriodMs?: number | undefined;
  readonly concurrentServiceEndpointSyncs?: number | undefined;
  readonly maxEndpointsPerSlice?: number | undefined;
  readonly endpointSliceUpdatesBatchPeriodMs?: number | undefined;
  readonly mirroringConcurrentServiceEndpointSyncs?: number | undefined;
  readonly mirroringMaxEndpointsPerSubset?: number | undefined;
  readonly mirroringEndpointSliceUpdatesBatchPeriodMs?: number | undefined;
  readonly concurrentServiceSyncs?: number | undefined;
  /** `--cloud-provider` (svc has none; the service loop names it in its Event). */
  readonly cloudProvider?: string | undefined;
  // The horizontal pod autoscaler (autoscale): --concurrent-horizontal-pod-autoscaler-syncs and the --horizontal-pod-autoscaler-* options.
  readonly concurrentHorizontalPodAutoscalerSyncs?: number | undefined;
  readonly horizontalPodAutoscalerSyncPeriodMs?: number | undefined;
  readonly horizontalPodAutoscalerTolerance?: number | undefined;
  readonly horizontalPodAutoscalerDownscaleStabilizationMs?: number | undefined;
  readonly horizontalPodAutoscalerCpuInitializationPeriodMs?: number | undefined;
  readonly horizontalPodAutoscalerInitialReadinessDelayMs?: number | undefined;
  /** The DRADeviceTaints feature gate (off, as upstream): without it device-taint-eviction does not run. */
  readonly draDeviceTaints?: boolean | undefined;
  // Nodes (node-loops): node-lifecycle, taint-eviction, node-ipam, ttl; unset: kube's defaults.
  readonly nodeMonitorPeriodMs?: number | undefined;
  readonly nodeMonitorGracePeriodMs?: number | undefined;
  readonly nodeStartupGracePeriodMs?: number | undefined;
  readonly nodeEvictionRate?: number | undefined;
  readonly secondaryNodeEvictionRate?: number | undefined;
  readonly largeClusterSizeThreshold?: number | undefined;
  readonly unhealthyZoneThreshold?: number | undefined;
  /** `--allocate-node-cidrs`: without it node-ipam does not run (as kube). */
  readonly allocateNodeCidrs?: boolean | undefined;
  readonly clusterCidr?: string | undefined;
  readonly serviceClusterIpRange?: string | undefined;
  readonly cidrAllocatorType?: string | undefined;
  readonly nodeCidrMaskSize?: number | undefined;
  readonly nodeCidrMaskSizeIpv4?: number | undefined;
  readonly nodeCidrMaskSizeIpv6?: number | undefined;
  // Storage loops (storage-loops); unset: kube's defaults.
  /** `--pvclaimbinder-sync-period` (15 s). */
  readonly pvClaimBinderSyncPeriodMs?: number | undefined;
  /** `--enable-dynamic-provisioning` (true). */
  readonly enableDynamicProvisioning?: boolean | undefined;
  /** `--enable-hostpath-provisioner` (false): the svc.io/host-path provisioner and its `local-path` class. */
  readonly enableHostPathProvisioner?: boolean | undefined;
  /** `--hostpath-provisioner-root`: where provisioned directories are made. */
  readonly hostPathProvisionerRoot?: string | undefined;
  /** The `--pv-recycler-*` options, templates read. */
  readonly recycler?: RecyclerOptions | undefined;
  readonly concurrentEphemeralVolumeSyncs?: number | undefined;
  /** `--attach-detach-reconcile-sync-period` (1 m). */
  readonly attachDetachReconcileSyncPeriodMs?: number | undefined;
  readonly disableAttachDetachReconcileSync?: boolean | undefined;
  // Admission policies (vap).
  readonly concurrentValidatingAdmissionPolicyStatusSyncs?: number | undefined;
  // Policy loops (policy-loops): --concurrent-resource-quota-syncs, --resource-quota-sync-period.
  readonly concurrentResourceQuotaSyncs?: number | undefined;
  readonly resourceQuotaSyncPeriodMs?: number | undefined;
}

/** Makes a loop from the settings; called once when the manager starts (the loop then runs once per term). */
export type LoopFactory = (settings: LoopSettings) => ControlLoop;

/** Loops by controller name: the built-in names, and any name a controller module brings. */
export type LoopRegistry = ReadonlyMap<string, LoopFactory>;

/** The loops svc ships, by the names `--controllers` selects them with. */
export function builtinLoops(): ReadonlyMap<ControllerName, LoopFactory> {
  return new Map<ControllerName, LoopFactory>([
    ['namespace-controller', (s) => (ctx) => namespaceController(ctx, { concurrency: s.concurrentNamespaceSyncs, resyncPeriodMs: s.namespaceSyncPeriodMs })],
    ['garbage-collector-controller', (s) => (ctx) => garbageCollector(ctx, { concurrency: s.concurrentGcSyncs })],
    ['root-ca-certificate-publisher-controller', (s) => (ctx) => (s.rootCa ? rootCaPublisher(ctx, { rootCa: s.rootCa }) : EMPTY)],
    // Batch loops.
    ['job-controller', (s) => (ctx) => jobController(ctx, { concurrency: s.concurrentJobSyncs ?? 5 })],
    ['cronjob-controller', (s) => (ctx) => cronJobController(ctx, { concurrency: s.concurrentCronJobSyncs ?? 5 })],
    ['ttl-after-finished-controller', (s) => (ctx) => ttlAfterFinishedController(ctx, { concurrency: s.concurrentTtlAfterFinishedSyncs ?? 5 })],
    ['pod-garbage-collector-controller', (s) => (ctx) => podGcController(ctx, { terminatedPodThreshold: s.terminatedPodGcThreshold ?? 12_500 })],
    // Replicated workloads (wl-replicas).
    ['replicaset-controller', (s) => (ctx) => replicaSetController(ctx, { concurrency: s.concurrentReplicasetSyncs ?? 5 })],
    ['replicationcontroller-controller', (s) => (ctx) => replicationControllerController(ctx, { concurrency: s.concurrentRcSyncs ?? 5 })],
    ['deployment-controller', (s) => (ctx) => deploymentController(ctx, { concurrency: s.concurrentDeploymentSyncs ?? 5 })],
    // Node-bound and stateful workloads, and the budgets that guard them (wl-nodes).
    ['daemonset-controller', (s) => (ctx) => daemonSetController(ctx, { concurrency: s.concurrentDaemonsetSyncs ?? 2 })],
    ['statefulset-controller', (s) => (ctx) => statefulSetController(ctx, { concurrency: s.concurrentStatefulsetSyncs ?? 5 })],
    ['disruption-controller', () => (ctx) => disruptionController(ctx)],
    // Service accounts and their tokens (sa-loops).
    ['serviceaccount-controller', () => (ctx) => serviceAccountController(ctx)],
    ['serviceaccount-token-controller', (s) => {
      if (!s.serviceAccountPrivateKey) return () => EMPTY;
      const signingKey = signingKeyFromPem(s.serviceAccountPrivateKey, '--service-account-private-key-file');
      return (ctx) => serviceAccountTokenController(ctx, { signingKey, rootCa: s.rootCa, concurrency: s.concurrentServiceaccountTokenSyncs ?? 5 });
    }],
    // Bootstrap tokens (off by default, as kube; `svc up` turns them on).
    ['bootstrap-signer-controller', () => (ctx) => bootstrapSigner(ctx)],
    ['token-cleaner-controller', () => (ctx) => tokenCleaner(ctx)],
    // Certificates (csr): csrsigning runs only with a CA to sign with, as kube.
    ['certificatesigningrequest-signing-controller', (s) => (ctx) =>
      s.clusterSigning && s.clusterSigning.size > 0 ? csrSigningController(ctx, { signers: s.clusterSigning, durationMs: s.clusterSigningDurationMs ?? 365 * 24 * 3600_000 }) : EMPTY],
    ['certificatesigningrequest-approving-controller', () => (ctx) => csrApprovingController(ctx)],
    ['certificatesigningrequest-cleaner-controller', () => (ctx) => csrCleanerController(ctx)],
    // Service endpoints (net-loops).
    ['endpoints-controller', (s) => (ctx) => endpointsController(ctx, { concurrency: s.concurrentEndpointSyncs ?? 5, batchPeriodMs: s.endpointUpdatesBatchPeriodMs ?? 0 })],
    ['endpointslice-controller', (s) => (ctx) =>
      endpointSliceController(ctx, { concurrency: s.concurrentServiceEndpointSyncs ?? 5, maxEndpointsPerSlice: s.maxEndpointsPerSlice ?? 100, batchPeriodMs: s.endpointSliceUpdatesBatchPeriodMs ?? 0 })],
    ['endpointslice-mirroring-controller', (s) => (ctx) =>
      endpointSliceMirroringController(ctx, {
        concurrency: s.mirroringConcurrentServiceEndpointSyncs ?? 5,
        maxEndpointsPerSubset: s.mirroringMaxEndpointsPerSubset ?? 1000,
        batchPeriodMs: s.mirroringEndpointSliceUpdatesBatchPeriodMs ?? 0,
      })],
    ['service-lb-controller', (s) => (ctx) => serviceLbController(ctx, { concurrency: s.concurrentServiceSyncs ?? 1, cloudProvider: s.cloudProvider })],
    // Autoscaling (autoscale).
    ['horizontal-pod-autoscaler-controller', (s) => (ctx) =>
      horizontalPodAutoscalerController(ctx, {
        concurrency: s.concurrentHorizontalPodAutoscalerSyncs,
        syncPeriodMs: s.horizontalPodAutoscalerSyncPeriodMs,
        tolerance: s.horizontalPodAutoscalerTolerance,
        downscaleStabilizationMs: s.horizontalPodAutoscalerDownscaleStabilizationMs,
        cpuInitializationPeriodMs: s.horizontalPodAutoscalerCpuInitializationPeriodMs,
        initialReadinessDelayMs: s.horizontalPodAutoscalerInitialReadinessDelayMs,
      })],
    ['device-taint-eviction-controller', (s) => (ctx) => (s.draDeviceTaints ? deviceTaintEvictionController(ctx) : EMPTY)],
    // Storage (storage-loops).
    ['persistentvolume-binder-controller', (s) => (ctx) => {
      const hostPath = s.enableHostPathProvisioner ? new HostPathProvisioner(ctx.client, s.hostPathProvisionerRoot) : undefined;
      const binder = persistentVolumeBinder(ctx, {
        syncPeriodMs: s.pvClaimBinderSyncPeriodMs ?? 15_000,
        dynamicProvisioning: s.enableDynamicProvisioning ?? true,
        hostPath,
        recycler: s.recycler,
      });
      return hostPath ? merge(binder, hostPathClassKeeper(ctx)) : binder;
    }],
    ['persistentvolume-expander-controller', () => (ctx) => persistentVolumeExpander(ctx)],
    ['persistentvolumeclaim-protection-controller', () => (ctx) => pvcProtectionController(ctx)],
    ['persistentvolume-protection-controller', () => (ctx) => pvProtectionController(ctx)],
    ['ephemeral-volume-controller', (s) => (ctx) => ephemeralVolumeController(ctx, { concurrency: s.concurrentEphemeralVolumeSyncs ?? 5 })],
    ['attachdetach-controller', (s) => (ctx) => attachDetachController(ctx, { reconcileSyncPeriodMs: s.attachDetachReconcileSyncPeriodMs ?? 60_000, disableReconcileSync: s.disableAttachDetachReconcileSync ?? false })],
    ['legacy-serviceaccount-token-cleaner-controller', (s) => (ctx) => legacyTokenCleaner(ctx, { cleanUpPeriodMs: s.legacyServiceAccountTokenCleanUpPeriodMs ?? 365 * 24 * 3600_000 })],
    // Nodes (node-loops).
    ['node-lifecycle-controller', (s) => (ctx) =>
      nodeLifecycleController(ctx, {
        monitorPeriodMs: s.nodeMonitorPeriodMs ?? 5_000,
        gracePeriodMs: s.nodeMonitorGracePeriodMs ?? 50_000,
        startupGracePeriodMs: s.nodeStartupGracePeriodMs ?? 60_000,
        evictionRate: s.nodeEvictionRate ?? 0.1,
        secondaryEvictionRate: s.secondaryNodeEvictionRate ?? 0.01,
        largeClusterThreshold: s.largeClusterSizeThreshold ?? 50,
        unhealthyZoneThreshold: s.unhealthyZoneThreshold ?? 0.55,
      })],
    ['taint-eviction-controller', () => (ctx) => taintEvictionController(ctx)],
    ['node-ipam-controller', (s) => {
      if (!s.allocateNodeCidrs) return () => EMPTY;
      // Checked here too (the command checks first): bad ranges fail the start, not the loop.
      const settings = { allocatorType: s.cidrAllocatorType ?? 'RangeAllocator', clusterCidr: s.clusterCidr ?? '', serviceCidr: s.serviceClusterIpRange, maskSize: s.nodeCidrMaskSize, maskSizeIpv4: s.nodeCidrMaskSizeIpv4, maskSizeIpv6: s.nodeCidrMaskSizeIpv6 };
      clusterCidrSets(settings);
      // Each term of leadership starts from fresh sets, rebuilt from the Nodes.
      return (ctx) => nodeIpamController(ctx, { sets: clusterCidrSets(settings) });
    }],
    ['ttl-controller', () => (ctx) => ttlController(ctx)],
    // Admission policies (vap): type checks into each ValidatingAdmissionPolicy's status.
    ['validatingadmissionpolicy-status-controller', (s) => (ctx) => validatingAdmissionPolicyStatusController(ctx, { concurrency: s.concurrentValidatingAdmissionPolicyStatusSyncs ?? 5 })],
    // Policy loops (policy-loops).
    ['clusterrole-aggregation-controller', () => (ctx) => clusterRoleAggregationController(ctx)],
    ['resourcequota-controller', (s) => (ctx) => resourceQuotaController(ctx, { concurrency: s.concurrentResourceQuotaSyncs ?? 5, resyncPeriodMs: s.resourceQuotaSyncPeriodMs ?? 5 * 60_000 })],
  ]);
}
