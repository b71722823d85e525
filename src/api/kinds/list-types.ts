import { objectMetaSchema, ownerReferenceSchema } from '../meta.js';
import type { ListType } from '../list-type.js';
import type { Schema } from '../schema-walk.js';
import { conditionSchema } from './common.js';
import { nodeAddressSchema, nodeSpecSchema, nodeStatusSchema } from './node.js';
import { containerPortSchema, containerSchema, envVarSchema, podSpecSchema, podStatusSchema, volumeMountSchema, volumeSchema } from './pod.js';
import { endpointPortSchema, servicePortSchema } from './service.js';

/**
 * The merge keys of the built-in kinds' lists, from Kubernetes' Go types (`patchMergeKey`,
 * `patchStrategy:"merge"`, `listMapKeys`). A list not named here is atomic.
 */

const byKeys = (...keys: [string, ...string[]]): ListType => ({ type: 'map', keys, mergeKey: keys[0] });
const SET: ListType = { type: 'set' };

/** Lists identified by their item schema: every list of these items merges this way. */
export const LIST_TYPES_BY_ITEM: ReadonlyArray<readonly [Schema, ListType]> = [
  [containerSchema, byKeys('name')],
  // Kubernetes merges container ports on containerPort and keys them for apply on the pair.
  [containerPortSchema, byKeys('containerPort', 'protocol')],
  [envVarSchema, byKeys('name')],
  [volumeMountSchema, byKeys('mountPath')],
  [volumeSchema, byKeys('name')],
  [servicePortSchema, byKeys('port', 'protocol')],
  [endpointPortSchema, byKeys('port', 'protocol')],
  [conditionSchema, byKeys('type')],
  [ownerReferenceSchema, byKeys('uid')],
  [nodeAddressSchema, byKeys('type')],
];

/** Lists identified by the struct and field that hold them (lists of scalars, unmodelled items). */
export const LIST_TYPES_BY_FIELD: ReadonlyArray<readonly [Schema, Readonly<Record<string, ListType>>]> = [
  [objectMetaSchema, { finalizers: SET }],
  [
    podSpecSchema,
    {
      ephemeralContainers: byKeys('name'),
      imagePullSecrets: byKeys('name'),
      hostAliases: byKeys('ip'),
      topologySpreadConstraints: byKeys('topologyKey', 'whenUnsatisfiable'),
      schedulingGates: byKeys('name'),
      readinessGates: byKeys('conditionType'),
    },
  ],
  [podStatusSchema, { podIPs: byKeys('ip'), hostIPs: byKeys('ip') }],
  [nodeSpecSchema, { podCIDRs: SET }],
  [nodeStatusSchema, { volumesInUse: SET }],
];
