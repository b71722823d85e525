export {
  escapeFieldValue,
  matchesFields,
  parseFieldSelector,
  type FieldOperator,
  type FieldRequirement,
  type FieldSelector,
} from './field-selector.js';
export { labelSelectorFromSpec, type LabelSelectorSpec, type LabelSelectorSpecRequirement } from './from-spec.js';
export { parseLabelSelector } from './label-parser.js';
export {
  formatLabelSelector,
  matchesLabels,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
  type Labels,
} from './label-selector.js';
