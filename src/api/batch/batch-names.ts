/**
 * The labels, annotations and finalizer of Jobs and their pods. Upstream's are under
 * `batch.kubernetes.io/`; svc renames the `kubernetes.io` part to `svc.io` as it does for its other
 * upstream names (node labels `svc.io/hostname`, finalizer `customresourcecleanup.apiextensions.svc.io`).
 * The unprefixed `controller-uid` and `job-name` labels are upstream's legacy ones, kept as they are
 * because selectors written for Kubernetes use them.
 */

/** Names the Job a pod belongs to (in the generated selector). */
export const JOB_CONTROLLER_UID_LABEL = 'batch.svc.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.svc.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

/** An Indexed Job's pod's index: an annotation and a label of the same name. */
export const JOB_COMPLETION_INDEX = 'batch.svc.io/job-completion-index';
/** Failures of an index so far, on its replacement pod (backoffLimitPerIndex). */
export const JOB_INDEX_FAILURE_COUNT = 'batch.svc.io/job-index-failure-count';
/** Failures of an index a pod failure policy Ignore rule did not count. */
export const JOB_INDEX_IGNORED_FAILURE_COUNT = 'batch.svc.io/job-index-ignored-failure-count';

/**
 * On every pod a Job creates, until the Job controller has counted the pod's end in the Job's
 * status (status.uncountedTerminatedPods, then succeeded/failed): a finished pod is never lost to
 * a pod garbage collector or a deletion before it is counted, and never counted twice.
 */
export const JOB_TRACKING_FINALIZER = 'batch.svc.io/job-tracking';

/** On a Job a CronJob made: the schedule time it stands for (RFC 3339). */
export const CRONJOB_SCHEDULED_TIMESTAMP = 'batch.svc.io/cronjob-scheduled-timestamp';
