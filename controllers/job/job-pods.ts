import { JOB_COMPLETION_INDEX, JOB_INDEX_FAILURE_COUNT, JOB_INDEX_IGNORED_FAILURE_COUNT, JOB_TRACKING_FINALIZER, type Job, type Pod, type PodTemplateSpec } from '../../src/api/index.js';
import { controllerRef } from '../controller-ref.js';
import { podFromTemplate } from '../workload/index.js';

/** The Job's own API type, for owner references. */
export const JOB_TYPE = { group: 'batch', version: 'v1', kind: 'Job' } as const;

/** The env var an Indexed Job's containers read their index from (upstream's name). */
export const JOB_COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

/** Upstream's limit on an Indexed Job pod's hostname part before the index. */
const MAX_HOSTNAME = 63;

/** An Indexed Job pod's index, from its annotation (or label); undefined when absent or not a number. */
export function completionIndexOf(pod: Pod): number | undefined {
  const text = pod.metadata.annotations?.[JOB_COMPLETION_INDEX] ?? pod.metadata.labels?.[JOB_COMPLETION_INDEX];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** Failures of the pod's index before it (its `job-index-failure-count` annotation). */
export const indexFailureCountOf = (pod: Pod): number => Number(pod.metadata.annotations?.[JOB_INDEX_FAILURE_COUNT] ?? 0) || 0;
export const indexIgnoredFailureCountOf = (pod: Pod): number => Number(pod.metadata.annotations?.[JOB_INDEX_IGNORED_FAILURE_COUNT] ?? 0) || 0;

export interface IndexFailures {
  readonly failed: number;
  readonly ignored: number;
}

/**
 * A pod of `job`, from its template by the shared workload code (owner reference, generated name),
 * with what a Job adds: the tracking finalizer (the pod's end is counted before it can go), and
 * for an Indexed Job its index as annotation and label, in `JOB_COMPLETION_INDEX` of every
 * container (from the annotation, by the downward API) and in its hostname `<job>-<index>`, as
 * upstream; with backoffLimitPerIndex, the index's failures so far.
 */
export function jobPodTemplate(job: Job, index?: number, failures?: IndexFailures): Pod {
  const template = job.spec.template as PodTemplateSpec;
  const labels = { ...template.metadata?.labels };
  const annotations = { ...template.metadata?.annotations };
  let spec = { ...template.spec };
  if (index !== undefined) {
    annotations[JOB_COMPLETION_INDEX] = String(index);
    labels[JOB_COMPLETION_INDEX] = String(index);
    if (failures && job.spec.backoffLimitPerIndex !== undefined) {
      annotations[JOB_INDEX_FAILURE_COUNT] = String(failures.failed);
      if (failures.ignored > 0) annotations[JOB_INDEX_IGNORED_FAILURE_COUNT] = String(failures.ignored);
    }
    const env = { name: JOB_COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX}']` } } };
    const withIndex = <C extends { env?: unknown[] | undefined }>(containers: C[] | undefined): C[] | undefined =>
      containers?.map((c) => ({ ...c, env: [...(c.env ?? []).filter((e) => (e as { name?: string }).name !== JOB_COMPLETION_INDEX_ENV), env] }));
    spec = { ...spec, containers: withIndex(spec.containers)!, ...(spec.initContainers ? { initContainers: withIndex(spec.initContainers) } : {}) };
    if (spec.hostname === undefined) spec = { ...spec, hostname: `${job.metadata.name!.slice(0, MAX_HOSTNAME - String(index).length - 1)}-${index}` };
  }
  const metadata = { ...template.metadata, labels, annotations, finalizers: [...(template.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER] };
  return podFromTemplate(
    { metadata, spec },
    {
      namespace: job.metadata.namespace!,
      controllerRef: controllerRef(job, JOB_TYPE),
      generateName: index === undefined ? `${job.metadata.name}-` : `${job.metadata.name}-${index}-`,
    },
  );
}
