export {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldInvalidWithoutValue,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  formatValue,
  inMessage,
} from './causes.js';
export { generateName, MAX_GENERATE_NAME_PREFIX, SAFE_ALPHABET } from './generate-name.js';
export {
  LABEL_VALUE_MAX,
  QUALIFIED_NAME_MAX,
  TOTAL_ANNOTATION_SIZE_MAX,
  validateAnnotations,
  validateLabels,
  validateLabelValue,
  validateQualifiedName,
} from './labels.js';
export { DNS1123_LABEL_MAX, DNS1123_SUBDOMAIN_MAX, validateName, validateNamePrefix } from './names.js';
export { validateObjectMeta, type ObjectMetaRules } from './object-meta.js';
export { statusPartOf, statusViewOf, validateObject, validateStatusWrite, withoutNulls, type ValidationResult } from './validate-object.js';
