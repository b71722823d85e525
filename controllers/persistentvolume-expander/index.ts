export { persistentVolumeExpander, STORAGE_RESIZER_ANNOTATION } from './expander.js';
