// Public surface of controllers/revision-history: the ControllerRevision history of pod templates
// that DaemonSets and StatefulSets keep (docs/controller-manager.md).
export { hashRevision, safeEncode } from './revision-hash.js';
export {
  buildRevision,
  ensureRevision,
  equalRevisions,
  nextRevisionNumber,
  revisionHash,
  revisionName,
  sortRevisions,
  templateOfRevision,
  templateRevisionData,
  truncateHistory,
} from './revision-history.js';
export type { CurrentHistory, RevisionOwner, TemplateRevisionData } from './revision-history.js';
