// Public surface of controllers/: the controller builder, the context loops get, the loops, and the controller manager.
export { controller } from './controller.js';
export type { ControllerOptions, ControllerResult, OwnedSource, ReconcileContext, ReconcileStart, Source, SyncedSource } from './controller.js';
export type { ControllerContext, ControllerDefaults, ControlLoop } from './context.js';
export { namespaceController } from './namespace/index.js';
export { ROOT_CA_CONFIGMAP, rootCaPublisher } from './root-ca-publisher/index.js';
export type { RootCaPublisherOptions } from './root-ca-publisher/index.js';
export type { NamespaceControllerOptions } from './namespace/index.js';
export { garbageCollector } from './garbage-collector/index.js';
export { DEFAULT_SERVICE_ACCOUNT, serviceAccountController } from './serviceaccount/index.js';
export type { ServiceAccountControllerOptions } from './serviceaccount/index.js';
export { serviceAccountTokenController } from './serviceaccount-token/index.js';
export type { ServiceAccountTokenControllerOptions } from './serviceaccount-token/index.js';
export { legacyTokenCleaner } from './legacy-serviceaccount-token-cleaner/index.js';
export { bootstrapSigner, detachedSignature } from './bootstrap-signer/index.js';
export { aggregatedRules, clusterRoleAggregationController } from './clusterrole-aggregation/index.js';
export { resourceQuotaController, type ResourceQuotaControllerOptions } from './resourcequota/index.js';
export type { BootstrapSignerOptions } from './bootstrap-signer/index.js';
export { tokenCleaner } from './token-cleaner/index.js';
export { csrSigningController, type CsrSigningOptions } from './csrsigning/index.js';
export { csrApprovingController, type CsrApprovingOptions } from './csrapproving/index.js';
export { CSR_CLEANER_AGES, csrCleanerController, csrDeletableAt, type CsrCleanerOptions } from './csrcleaner/index.js';
export { validatingAdmissionPolicyStatusController, validatingAdmissionPolicies } from './validating-admission-policy-status/index.js';
export type { TokenCleanerOptions } from './token-cleaner/index.js';
export type { LegacyTokenCleanerOptions } from './legacy-serviceaccount-token-cleaner/index.js';
export type { GarbageCollectorOptions } from './garbage-collector/index.js';
// The controller runtime: one call runs named loops with one Lease, signals, drain and a secure port.
export { LIVE_CONTROLLERS_PATH, LoopActivity, runControllers } from './runtime/index.js';
export { CONTROLLER_MODULE_EXPORT, loadControllerModule, loadControllerModules } from './manager/index.js';
export type { ControllerRuntime, ControllerRuntimeOptions, ControllersSnapshot, ControllersUpdate, ElectionOptions, QueueStats, ReconcileRecord, RuntimeServingOptions } from './runtime/index.js';
export { builtinLoops, CONTROLLER_NAMES, selectControllers, startControllerManager } from './manager/index.js';
export type { ControllerManagerOptions, ControllerName, LoopFactory, LoopRegistry, LoopSettings, RunningControllerManager } from './manager/index.js';
// svc-scheduler's pipeline (docs/scheduler.md).
export { leaderElectedScheduler, scheduler } from './scheduler/index.js';
export type { LeaderElectedSchedulerOptions, ScheduleResult, SchedulerOptions } from './scheduler/index.js';
// Ownership and expectations: the primitives a controller that creates objects needs (docs/controllers.md).
export { apiVersionOf, controllerOf, controllerRef, groupOfApiVersion, isControlledBy } from './controller-ref.js';
export type { OwnerType } from './controller-ref.js';
export { claimCandidates, claimObjects } from './claim-objects.js';
export type { ClaimOptions, ClaimOwner, ClaimResult } from './claim-objects.js';
export { EXPECTATIONS_TTL_MS, Expectations } from './expectations.js';
export type { ExpectationsOptions } from './expectations.js';
export { observeOwned } from './observe-owned.js';
export type { ObservedOwner } from './observe-owned.js';
// Batch loops: Jobs, CronJobs, finished-Job TTLs, pod garbage collection (docs/jobs.md, docs/controller-manager.md).
export { jobController } from './job/index.js';
export type { JobControllerOptions } from './job/index.js';
export { cronJobController } from './cronjob/index.js';
export type { CronJobControllerOptions } from './cronjob/index.js';
export { ttlAfterFinishedController } from './ttl-after-finished/index.js';
export type { TtlAfterFinishedOptions } from './ttl-after-finished/index.js';
export { podGcController } from './podgc/index.js';
export type { PodGcOptions } from './podgc/index.js';
// Making and removing the pods of a workload: pods from templates, slow-start creation, deletion, readiness, scale-down order.
export * from './workload/index.js';
// Replicated workloads: ReplicaSet, ReplicationController (docs/controller-manager.md).
export { BURST_REPLICAS, replicaSetController, replicatedController } from './replicaset/index.js';
export type { ReplicaSetControllerOptions, ReplicatedKind, ReplicatedStatus } from './replicaset/index.js';
export { replicationControllerController } from './replicationcontroller/index.js';
// What the svc-controller-manager command needs beyond starting it: controller selection, the log
// it writes through, the secure port's delegated authentication and authorization.
export { canonicalControllerName, DISABLED_BY_DEFAULT, invalidControllerItems, invalidControllerSelection } from './manager/index.js';
export { AccessReviewer, parseCertificates, RequestAuth, TokenReviewer } from './manager/index.js';
export type { ManagerLog, ServingTls } from './manager/index.js';
// The DaemonSet, StatefulSet and disruption loops (docs/controller-manager.md).
export { daemonSetController, targetNodeOf } from './daemonset/index.js';
export type { DaemonSetControllerOptions } from './daemonset/index.js';
export { statefulSetController } from './statefulset/index.js';
export type { StatefulSetControllerOptions } from './statefulset/index.js';
export { DEPLOYMENT_ANNOTATIONS, DEPLOYMENT_REASONS, deploymentController, maxSurge, maxUnavailable, POD_TEMPLATE_HASH, podTemplateHash, resolveFenceposts, revisionOf, scaledValue } from './deployment/index.js';
export type { DeploymentControllerOptions } from './deployment/index.js';
export { disruptionController } from './disruption/index.js';
export type { DisruptionControllerOptions } from './disruption/index.js';
export { KUBERNETES_SERVICE, kubernetesService, masterCountAddresses, startKubernetesService, withdrawApiServer } from './apiserver-service/index.js';
export type { KubernetesServiceOptions, RunningKubernetesService, StartKubernetesServiceOptions } from './apiserver-service/index.js';
export { Conntrack, Iptables, removeAll, restoreInput, ruleDelta, serviceRules, stableOrder, staleUdpFilters, startServiceProxy } from './service-proxy/index.js';
export type { IpFamily, ProxyNode, ProxySync, ServiceProxy, ServiceProxyOptions, ServiceRules, UdpPort } from './service-proxy/index.js';
export { answerQuery, hostResolvers, resolveClusterName, startClusterDns } from './cluster-dns/index.js';
export type { ClusterDns, ClusterDnsOptions, ClusterView } from './cluster-dns/index.js';
// Service endpoints: the endpoints, endpointslice, endpointslice-mirroring and service-lb loops, and what they share (docs/controller-manager.md).
export * from './service-endpoints/index.js';
export { desiredSubsets, endpointsController, MAX_ENDPOINT_ADDRESSES, OVER_CAPACITY_ANNOTATION, OVER_CAPACITY_TRUNCATED, truncateSubsets } from './endpoints/index.js';
export type { EndpointsControllerOptions } from './endpoints/index.js';
export { conditionsAtWrite, desiredGroups, EndpointCache, endpointSliceController, managedByEndpointSliceController, ZONE_LABEL } from './endpointslice/index.js';
export type { EndpointSliceControllerOptions, SyncReport } from './endpointslice/index.js';
export { endpointSliceMirroringController, managedByMirroringController, mirroredGroups } from './endpointslice-mirroring/index.js';
export type { EndpointSliceMirroringControllerOptions } from './endpointslice-mirroring/index.js';
export { NO_LOAD_BALANCER_REASON, serviceLbController } from './service/index.js';
export type { ServiceLbControllerOptions } from './service/index.js';
// Nodes: health and taints, NoExecute evictions, pod CIDRs, the node TTL annotation (docs/controller-manager.md).
export { NODE_LEASE_NAMESPACE, nodeLifecycleController, STATUS_UNKNOWN_MESSAGE, STATUS_UNKNOWN_REASON, zoneOf, zoneRate, zoneState } from './node-lifecycle/index.js';
export type { NodeLifecycleOptions, ZoneState } from './node-lifecycle/index.js';
export { evictionTime, taintEvictionController } from './taint-eviction/index.js';
export type { TaintEvictionOptions } from './taint-eviction/index.js';
export { CidrSet, clusterCidrSets, nodeIpamController, parseCidr } from './node-ipam/index.js';
export type { NodeIpamOptions, NodeIpamSettings } from './node-ipam/index.js';
export { NODE_TTL_ANNOTATION, ttlController, TTL_BOUNDARIES, ttlStep } from './ttl/index.js';
