import { z } from 'zod';
import {
  conditionSchema,
  kindSchema,
  labelSelectorSchema,
  looseSchema,
  objectReferenceSchema,
  quantitySchema,
  resourceListSchema,
  timeSchema,
  requiredPart,
} from './common.js';

/** PersistentVolume and PersistentVolumeClaim (core v1). */

export const accessModeSchema = z.enum(['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod']);
const volumeMode = z.enum(['Filesystem', 'Block']);

// Both kinds must say how much storage they offer or ask for, and how it may be mounted.
const storageAmount = z.object({ storage: quantitySchema }).catchall(quantitySchema);
const accessModes = z.array(accessModeSchema).min(1);

export const persistentVolumeSpecSchema = z.looseObject({
  capacity: storageAmount,
  accessModes,
  persistentVolumeReclaimPolicy: z.enum(['Retain', 'Recycle', 'Delete']).optional(),
  storageClassName: z.string().optional(),
  mountOptions: z.array(z.string()).optional(),
  volumeMode: volumeMode.optional(),
  claimRef: objectReferenceSchema.optional(),
  nodeAffinity: looseSchema.optional(),
  volumeAttributesClassName: z.string().optional(),
  hostPath: z.looseObject({ path: z.string().min(1), type: z.string().optional() }).optional(),
  local: z.looseObject({ path: z.string().min(1), fsType: z.string().optional() }).optional(),
  nfs: z.looseObject({ server: z.string().min(1), path: z.string().min(1), readOnly: z.boolean().optional() }).optional(),
  csi: z.looseObject({ driver: z.string().min(1), volumeHandle: z.string().min(1) }).optional(),
});

export const persistentVolumeSchema = kindSchema({
  spec: requiredPart(persistentVolumeSpecSchema),
  status: z
    .looseObject({
      phase: z.enum(['Pending', 'Available', 'Bound', 'Released', 'Failed']).optional(),
      message: z.string().optional(),
      reason: z.string().optional(),
      lastPhaseTransitionTime: timeSchema.optional(),
    })
    .optional(),
});

export const persistentVolumeClaimSpecSchema = z.looseObject({
  accessModes,
  resources: requiredPart(z.looseObject({ requests: storageAmount, limits: resourceListSchema.optional() })),
  storageClassName: z.string().optional(),
  volumeName: z.string().optional(),
  volumeMode: volumeMode.optional(),
  selector: labelSelectorSchema.optional(),
  dataSource: looseSchema.optional(),
  dataSourceRef: looseSchema.optional(),
  volumeAttributesClassName: z.string().optional(),
});

export const persistentVolumeClaimStatusSchema = z.looseObject({
  phase: z.enum(['Pending', 'Bound', 'Lost']).optional(),
  accessModes: z.array(accessModeSchema).optional(),
  capacity: resourceListSchema.optional(),
  allocatedResources: resourceListSchema.optional(),
  conditions: z.array(conditionSchema).optional(),
});

export const persistentVolumeClaimSchema = kindSchema({
  spec: requiredPart(persistentVolumeClaimSpecSchema),
  status: persistentVolumeClaimStatusSchema.optional(),
});

export type PersistentVolume = z.infer<typeof persistentVolumeSchema>;
export type PersistentVolumeClaim = z.infer<typeof persistentVolumeClaimSchema>;
