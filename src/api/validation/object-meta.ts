import type { ObjectMeta } from '../meta.js';
import type { NameRule } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { fieldForbidden, fieldInvalid, fieldRequired } from './causes.js';
import { validateAnnotations, validateLabels, validateQualifiedName } from './labels.js';
import { validateDns1123Label, validateName, validateNamePrefix } from './names.js';

export interface ObjectMetaRules {
  readonly namespaced: boolean;
  readonly nameRule: NameRule;
}

/**
 * The metadata rules every kind shares: a valid name (or generateName), a namespace exactly when
 * the kind is namespaced, valid labels, annotations, finalizers and owner references. Fields of
 * the wrong JSON type are left to `validateObject`, which reports them once; null reads as unset.
 */
export function validateObjectMeta(meta: ObjectMeta, rules: ObjectMetaRules): FieldCause[] {
  const causes: FieldCause[] = [];
  const { name, generateName, namespace } = meta;

  if (typeof name === 'string' && name !== '') {
    for (const problem of validateName(name, rules.nameRule)) causes.push(fieldInvalid('metadata.name', name, problem));
  } else if (typeof generateName === 'string' && generateName !== '') {
    for (const problem of validateNamePrefix(generateName, rules.nameRule)) {
      causes.push(fieldInvalid('metadata.generateName', generateName, problem));
    }
  } else if (name == null || name === '') {
    causes.push(fieldRequired('metadata.name', 'name or generateName is required'));
  }

  if (rules.namespaced) {
    if (namespace == null || namespace === '') causes.push(fieldRequired('metadata.namespace'));
    else if (typeof namespace === 'string') {
      for (const problem of validateDns1123Label(namespace)) causes.push(fieldInvalid('metadata.namespace', namespace, problem));
    }
  } else if (namespace != null && namespace !== '') {
    causes.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }

  causes.push(...validateLabels(meta.labels, 'metadata.labels'));
  causes.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  causes.push(...validateFinalizers(meta.finalizers));
  causes.push(...validateOwnerReferences(meta.ownerReferences));
  return causes;
}

function validateFinalizers(finalizers: unknown): FieldCause[] {
  if (!Array.isArray(finalizers)) return [];
  return finalizers.flatMap((finalizer, i) =>
    typeof finalizer === 'string'
      ? validateQualifiedName(finalizer).map((problem) => fieldInvalid(`metadata.finalizers[${i}]`, finalizer, problem))
      : [],
  );
}

function validateOwnerReferences(references: unknown): FieldCause[] {
  if (!Array.isArray(references)) return [];
  const causes: FieldCause[] = [];
  let controllers = 0;
  references.forEach((reference: unknown, i) => {
    if (reference === null || typeof reference !== 'object') return;
    const ref = reference as Record<string, unknown>;
    const field = `metadata.ownerReferences[${i}]`;
    for (const key of ['apiVersion', 'kind', 'name', 'uid']) {
      if (ref[key] == null || ref[key] === '') causes.push(fieldRequired(`${field}.${key}`));
    }
    if (ref['controller'] === true) controllers++;
  });
  // Two controllers would fight over the object; Kubernetes allows one.
  if (controllers > 1) {
    causes.push(fieldInvalid('metadata.ownerReferences', references, 'Only one reference can have Controller set to true'));
  }
  return causes;
}
