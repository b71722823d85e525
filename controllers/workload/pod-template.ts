import { validateNamePrefix, type KubeObject, type OwnerReference, type Pod, type PodTemplateSpec } from '../../src/api/index.js';

/**
 * The `generateName` of the pods an owner makes, as upstream's getPodsPrefix: `<owner>-`, or the
 * owner's name alone when the dash would make it no valid prefix (too long for a pod name).
 */
export function podNamePrefix(ownerName: string): string {
  const prefix = `${ownerName}-`;
  return validateNamePrefix(prefix, 'subdomain').length === 0 ? prefix : ownerName;
}

export interface PodFromTemplateOptions {
  /** Where the pod goes: the owner's namespace. */
  readonly namespace: string;
  /** The controller reference to put on the pod (`controllerRef(owner, type)`). */
  readonly controllerRef: OwnerReference;
  /** `generateName`; default `podNamePrefix(controllerRef.name)`. */
  readonly generateName?: string;
  /** A fixed name instead of `generateName` (stateful sets). */
  readonly name?: string;
}

/**
 * A pod to create from a workload's template, as upstream's GetPodFromTemplate: the template's
 * labels, annotations and finalizers (copied: the template is a cached object, never to be
 * mutated), its spec as it is, the owner's controller reference, and a generated name.
 */
export function podFromTemplate(template: PodTemplateSpec, options: PodFromTemplateOptions): Pod {
  const meta = template.metadata ?? {};
  const metadata: KubeObject['metadata'] = {
    namespace: options.namespace,
    ...(options.name !== undefined ? { name: options.name } : { generateName: options.generateName ?? podNamePrefix(options.controllerRef.name) }),
    ...(meta.labels ? { labels: { ...meta.labels } } : {}),
    ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
    ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
    ownerReferences: [options.controllerRef],
  };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: template.spec };
}
