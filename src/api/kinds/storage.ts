import { z } from 'zod';
import { kindSchema, looseSchema, requiredPart, stringMapSchema, timeSchema } from './common.js';

/** storage.svc.io/v1 (upstream storage.k8s.io): StorageClass and VolumeAttachment. */

export const volumeBindingModeSchema = z.enum(['Immediate', 'WaitForFirstConsumer']);

export const storageClassSchema = kindSchema({
  // Immutable after creation, as upstream: a class's claims were provisioned by these settings.
  provisioner: z.string().min(1),
  parameters: stringMapSchema.optional(),
  reclaimPolicy: z.enum(['Retain', 'Delete', 'Recycle']).optional(),
  mountOptions: z.array(z.string()).optional(),
  allowVolumeExpansion: z.boolean().optional(),
  volumeBindingMode: volumeBindingModeSchema.optional(),
  allowedTopologies: z.array(looseSchema).optional(),
});

const volumeErrorSchema = z.looseObject({ time: timeSchema.optional(), message: z.string().optional(), errorCode: z.int().optional() });

export const volumeAttachmentSchema = kindSchema({
  spec: requiredPart(
    z.looseObject({
      attacher: z.string().min(1),
      source: z.looseObject({ persistentVolumeName: z.string().optional(), inlineVolumeSpec: looseSchema.optional() }),
      nodeName: z.string().min(1),
    }),
  ),
  status: z
    .looseObject({
      attached: z.boolean().optional(),
      attachmentMetadata: stringMapSchema.optional(),
      attachError: volumeErrorSchema.optional(),
      detachError: volumeErrorSchema.optional(),
    })
    .optional(),
});

export type StorageClass = z.infer<typeof storageClassSchema>;
export type VolumeAttachment = z.infer<typeof volumeAttachmentSchema>;
