/**
 * Label and annotation keys more than one part of svc reads or writes. Where Kubernetes' own key
 * (`kubernetes.io/...`, `k8s.io/...`) has an svc spelling, readers accept both; svc writes its own.
 */

/** The annotation of the bookmark that ends a watch's initial events (`sendInitialEvents`), as svc writes it. */
export const INITIAL_EVENTS_END_ANNOTATION = 'svc.io/initial-events-end';
/** Every spelling a client accepts for it (a Kubernetes API server writes the `k8s.io` one). */
export const INITIAL_EVENTS_END_ANNOTATIONS = [INITIAL_EVENTS_END_ANNOTATION, 'k8s.io/initial-events-end'] as const;

/** On a mirror pod: the hash of the static pod it mirrors (the node agent writes it). */
export const CONFIG_MIRROR_ANNOTATION = 'svc.io/config.mirror';
/** Every spelling that marks a pod as a mirror pod. */
export const CONFIG_MIRROR_ANNOTATIONS = ['kubernetes.io/config.mirror', CONFIG_MIRROR_ANNOTATION] as const;

/** On an EndpointSlice: the Service it belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** Every spelling of it a reader accepts. */
export const SERVICE_NAME_LABELS = [SERVICE_NAME_LABEL, 'svc.io/service-name'] as const;

/**
 * On an EndpointSlice: which controller manages it. Kubernetes' key and values are what
 * kube-proxy-style readers select on; svc writes its own spelling beside them, and a reader
 * accepts either.
 */
export const ENDPOINTSLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const ENDPOINTSLICE_MANAGED_BY_SVC_LABEL = 'endpointslice.svc.io/managed-by';
/** The managers, by their Kubernetes value and their svc value. */
export const ENDPOINTSLICE_CONTROLLER_MANAGER = { upstream: 'endpointslice-controller.k8s.io', svc: 'endpointslice-controller.svc.io' } as const;
export const ENDPOINTSLICE_MIRRORING_MANAGER = { upstream: 'endpointslicemirroring-controller.k8s.io', svc: 'endpointslicemirroring-controller.svc.io' } as const;
/** On an Endpoints object: `"true"` keeps the mirroring controller from mirroring it into slices. */
export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';

/** Where a pod finds its service-account token, CA and namespace (mounted by admission, read by `Client.fromEnv`). */
export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The Secret type whose secrets the controller manager fills with a legacy service-account token
 * (`token`, `ca.crt`, `namespace`), as svc writes it. Kubernetes' spelling is accepted too: it is
 * what manifests written for Kubernetes carry.
 */
export const SERVICE_ACCOUNT_TOKEN_SECRET_TYPE = 'svc.io/service-account-token';
export const SERVICE_ACCOUNT_TOKEN_SECRET_TYPES = [SERVICE_ACCOUNT_TOKEN_SECRET_TYPE, 'kubernetes.io/service-account-token'] as const;
/** On a token Secret: the ServiceAccount it is for (written by its author), every spelling. */
export const SERVICE_ACCOUNT_NAME_ANNOTATIONS = ['kubernetes.io/service-account.name', 'svc.io/service-account.name'] as const;
/** On a token Secret: that account's uid (written by the loop, in the spelling of the name annotation). */
export const SERVICE_ACCOUNT_UID_ANNOTATIONS = ['kubernetes.io/service-account.uid', 'svc.io/service-account.uid'] as const;

/**
 * On a legacy token Secret: the day (`YYYY-MM-DD`, UTC) its token was last used (the API server
 * writes it, at most once a day), and the day the legacy token cleaner made it invalid (the API
 * server then refuses the token). Kubernetes' keys: tools that audit legacy tokens read them.
 */
export const LEGACY_TOKEN_LAST_USED_LABEL = 'kubernetes.io/legacy-token-last-used';
export const LEGACY_TOKEN_INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since';

/**
 * Bootstrap tokens (Kubernetes' names: kubeadm and node agents joining a cluster read and write
 * them): a Secret of this type named `bootstrap-token-<token-id>` in the system namespace, and the
 * `cluster-info` ConfigMap of the public namespace whose `kubeconfig` the bootstrap signer signs
 * per token (`jws-kubeconfig-<token-id>`).
 */
export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const CLUSTER_INFO_CONFIGMAP = 'cluster-info';
export const BOOTSTRAP_SIGNATURE_PREFIX = 'jws-kubeconfig-';

/**
 * On a Node whose containers are simulated (a hollow node: the real node agent on svc's simulated
 * CRI runtime, `svc hollow-nodes`): the label `svc.io/simulated=true`, so that selectors and
 * `kubectl get nodes -l` find them, and an annotation that says so in words.
 */
export const SIMULATED_NODE_LABEL = 'svc.io/simulated';
export const SIMULATED_NODE_ANNOTATION = 'svc.io/simulated-runtime';
/** The CRI runtime name of the simulation: nodeInfo.containerRuntimeVersion is `svc-simulated://<version>`. */
export const SIMULATED_RUNTIME_NAME = 'svc-simulated';

/**
 * On every Node, set by the ttl controller from the cluster's size: how long (seconds) the node's
 * agent may cache the ConfigMaps and Secrets its pods use (upstream's key).
 */
export const NODE_TTL_ANNOTATION = 'node.alpha.kubernetes.io/ttl';
