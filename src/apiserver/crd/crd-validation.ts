import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  validateName,
  type CustomResourceDefinition,
  type FieldCause,
  type KubeObject,
} from '../../api/index.js';
import { parseJsonPath } from '../../encoding/index.js';
import { validateStructuralSchema } from './structural-schema.js';

/** Group suffixes that name svc's and Kubernetes' own groups: a CRD there would shadow them. */
const RESERVED_GROUP_SUFFIXES = ['.svc.io', '.k8s.io', '.kubernetes.io'];
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
const COLUMN_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];

const dns1035 = (field: string, value: string | undefined, causes: FieldCause[]) => {
  if (value === undefined || value === '') return causes.push(fieldRequired(field));
  for (const problem of validateName(value, 'dns1035')) causes.push(fieldInvalid(field, value, problem));
  return 0;
};

/**
 * The rules of a CustomResourceDefinition beyond its field types (Kubernetes' ValidateCustomResourceDefinition,
 * as svc serves it): the name is `<plural>.<group>`, names are DNS labels, one storage version,
 * every served version has a structural schema, printer columns and scale paths are well formed,
 * and on update the scope and the group stay, and no stored version disappears.
 */
export function validateCustomResourceDefinition(object: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const crd = object as CustomResourceDefinition;
  const causes: FieldCause[] = [];
  const { spec } = crd;
  const names = spec.names;
  const group = spec.group;
  if (group === '') causes.push(fieldRequired('spec.group'));
  else {
    for (const problem of validateName(group, 'subdomain')) causes.push(fieldInvalid('spec.group', group, problem));
    if (!group.includes('.')) causes.push(fieldInvalid('spec.group', group, "should be a domain with at least one dot"));
    if (RESERVED_GROUP_SUFFIXES.some((suffix) => group === suffix.slice(1) || group.endsWith(suffix))) {
      causes.push(fieldInvalid('spec.group', group, `must not be in a group svc or Kubernetes reserve (${RESERVED_GROUP_SUFFIXES.join(', ')})`));
    }
  }
  const name = crd.metadata.name ?? '';
  if (name !== `${names.plural}.${group}`) causes.push(fieldInvalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  dns1035('spec.names.plural', names.plural, causes);
  if (names.plural !== names.plural.toLowerCase()) causes.push(fieldInvalid('spec.names.plural', names.plural, 'must be lowercase'));
  if (names.singular !== undefined) dns1035('spec.names.singular', names.singular, causes);
  if (!KIND.test(names.kind)) causes.push(fieldInvalid('spec.names.kind', names.kind, 'must start with an uppercase letter and hold only letters and digits'));
  if (names.listKind !== undefined) {
    if (!KIND.test(names.listKind)) causes.push(fieldInvalid('spec.names.listKind', names.listKind, 'must start with an uppercase letter and hold only letters and digits'));
    if (names.listKind === names.kind) causes.push(fieldInvalid('spec.names.listKind', names.listKind, 'kind and listKind may not be the same'));
  }
  (names.shortNames ?? []).forEach((short, i) => dns1035(`spec.names.shortNames[${i}]`, short, causes));
  (names.categories ?? []).forEach((category, i) => dns1035(`spec.names.categories[${i}]`, category, causes));

  if (spec.versions.length === 0) causes.push(fieldRequired('spec.versions', 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  spec.versions.forEach((version, i) => {
    const at = `spec.versions[${i}]`;
    dns1035(`${at}.name`, version.name, causes);
    if (seen.has(version.name)) causes.push(fieldDuplicate(`${at}.name`, version.name));
    seen.add(version.name);
    causes.push(...validateStructuralSchema(version.schema?.openAPIV3Schema, `${at}.schema.openAPIV3Schema`));
    validateColumns(version.additionalPrinterColumns ?? [], `${at}.additionalPrinterColumns`, causes);
    const scale = version.subresources?.scale;
    if (scale) {
      scalePath(scale.specReplicasPath, `${at}.subresources.scale.specReplicasPath`, ['.spec.'], causes);
      scalePath(scale.statusReplicasPath, `${at}.subresources.scale.statusReplicasPath`, ['.status.'], causes);
      if (scale.labelSelectorPath !== undefined) scalePath(scale.labelSelectorPath, `${at}.subresources.scale.labelSelectorPath`, ['.spec.', '.status.'], causes);
    }
  });
  const storage = spec.versions.filter((v) => v.storage).length;
  if (spec.versions.length > 0 && storage !== 1) causes.push(fieldInvalid('spec.versions', storage, 'must have exactly one version marked as storage version'));
  if (spec.versions.length > 0 && !spec.versions.some((v) => v.served)) causes.push(fieldInvalid('spec.versions', spec.versions.length, 'must have at least one served version'));
  if (spec.conversion && spec.conversion.strategy !== 'None') {
    causes.push(fieldNotSupported('spec.conversion.strategy', spec.conversion.strategy, ['None']));
  }
  if (spec.preserveUnknownFields === true) causes.push(fieldInvalid('spec.preserveUnknownFields', true, 'must be false in v1'));

  if (old) {
    const before = old as CustomResourceDefinition;
    if (before.spec.scope !== spec.scope) causes.push(fieldInvalid('spec.scope', spec.scope, 'field is immutable'));
    if (before.spec.group !== spec.group) causes.push(fieldInvalid('spec.group', spec.group, 'field is immutable'));
    for (const stored of before.status?.storedVersions ?? []) {
      if (!seen.has(stored)) causes.push(fieldInvalid('status.storedVersions', stored, 'must appear in spec.versions'));
    }
  }
  return causes;
}

function validateColumns(columns: readonly NonNullable<CustomResourceDefinition['spec']['versions'][number]['additionalPrinterColumns']>[number][], at: string, causes: FieldCause[]): void {
  const names = new Set<string>();
  columns.forEach((column, i) => {
    const path = `${at}[${i}]`;
    if (column.name === '') causes.push(fieldRequired(`${path}.name`));
    if (names.has(column.name)) causes.push(fieldDuplicate(`${path}.name`, column.name));
    names.add(column.name);
    if (!COLUMN_TYPES.includes(column.type)) causes.push(fieldNotSupported(`${path}.type`, column.type, COLUMN_TYPES));
    if (column.format !== undefined && column.format !== '' && !COLUMN_FORMATS.includes(column.format)) {
      causes.push(fieldNotSupported(`${path}.format`, column.format, COLUMN_FORMATS));
    }
    if (column.priority !== undefined && column.priority < 0) causes.push(fieldInvalid(`${path}.priority`, column.priority, 'must be greater than or equal to 0'));
    if (column.jsonPath === '') causes.push(fieldRequired(`${path}.jsonPath`));
    else if (!parseJsonPath(column.jsonPath)) causes.push(fieldInvalid(`${path}.jsonPath`, column.jsonPath, 'must be a simple json path'));
  });
}

function scalePath(path: string, field: string, prefixes: readonly string[], causes: FieldCause[]): void {
  if (!prefixes.some((p) => path.startsWith(p)) || !parseJsonPath(path)) {
    causes.push(fieldInvalid(field, path, `should be a json path under ${prefixes.join(' or ')}`));
  }
}
