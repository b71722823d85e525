import { z } from 'zod';

/**
 * The shapes of env references and volume sources as the node agent reads them. The API's Pod
 * schema keeps them loose (it validates only what admission needs); the agent parses each one it
 * uses, so a field of the wrong type is a clear error rather than a crash.
 */

const optional = z.boolean().nullish();

export const objectFieldSelectorSchema = z.looseObject({
  apiVersion: z.string().optional(),
  fieldPath: z.string().min(1),
});

export const resourceFieldSelectorSchema = z.looseObject({
  containerName: z.string().optional(),
  resource: z.string().min(1),
  divisor: z.union([z.string(), z.number()]).optional(),
});

const keySelectorSchema = z.looseObject({ name: z.string().default(''), key: z.string().min(1), optional });

export const envVarSourceSchema = z.looseObject({
  fieldRef: objectFieldSelectorSchema.optional(),
  resourceFieldRef: resourceFieldSelectorSchema.optional(),
  configMapKeyRef: keySelectorSchema.optional(),
  secretKeyRef: keySelectorSchema.optional(),
});

const sourceRefSchema = z.looseObject({ name: z.string().default(''), optional });

export const envFromSourceSchema = z.looseObject({
  prefix: z.string().optional(),
  configMapRef: sourceRefSchema.optional(),
  secretRef: sourceRefSchema.optional(),
});

const modeSchema = z.int().min(0).max(0o777);

export const keyToPathSchema = z.looseObject({ key: z.string().min(1), path: z.string().min(1), mode: modeSchema.optional() });

export const configMapVolumeSourceSchema = z.looseObject({
  name: z.string().default(''),
  items: z.array(keyToPathSchema).optional(),
  defaultMode: modeSchema.optional(),
  optional,
});

export const secretVolumeSourceSchema = z.looseObject({
  secretName: z.string().default(''),
  items: z.array(keyToPathSchema).optional(),
  defaultMode: modeSchema.optional(),
  optional,
});

export const downwardAPIFileSchema = z.looseObject({
  path: z.string().min(1),
  fieldRef: objectFieldSelectorSchema.optional(),
  resourceFieldRef: resourceFieldSelectorSchema.optional(),
  mode: modeSchema.optional(),
});

export const downwardAPIVolumeSourceSchema = z.looseObject({
  items: z.array(downwardAPIFileSchema).optional(),
  defaultMode: modeSchema.optional(),
});

export const serviceAccountTokenProjectionSchema = z.looseObject({
  audience: z.string().optional(),
  expirationSeconds: z.int().min(600).optional(),
  path: z.string().min(1),
});

export const volumeProjectionSchema = z.looseObject({
  configMap: z.looseObject({ name: z.string().default(''), items: z.array(keyToPathSchema).optional(), optional }).optional(),
  secret: z.looseObject({ name: z.string().default(''), items: z.array(keyToPathSchema).optional(), optional }).optional(),
  downwardAPI: z.looseObject({ items: z.array(downwardAPIFileSchema).optional() }).optional(),
  serviceAccountToken: serviceAccountTokenProjectionSchema.optional(),
});

export const projectedVolumeSourceSchema = z.looseObject({
  sources: z.array(volumeProjectionSchema).nullish(),
  defaultMode: modeSchema.optional(),
});

export const emptyDirVolumeSourceSchema = z.looseObject({
  medium: z.enum(['', 'Memory']).optional(),
  sizeLimit: z.union([z.string(), z.number()]).optional(),
});

export const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'] as const;

export const hostPathVolumeSourceSchema = z.looseObject({
  path: z.string().min(1),
  type: z.enum(HOST_PATH_TYPES).optional(),
});

export type ObjectFieldSelector = z.infer<typeof objectFieldSelectorSchema>;
export type ResourceFieldSelector = z.infer<typeof resourceFieldSelectorSchema>;
export type KeyToPath = z.infer<typeof keyToPathSchema>;
export type DownwardAPIFile = z.infer<typeof downwardAPIFileSchema>;
export type VolumeProjection = z.infer<typeof volumeProjectionSchema>;
export type HostPathType = (typeof HOST_PATH_TYPES)[number];

/** Parses `value` with `schema`, or describes what is wrong with it in one line. */
export function parseSource<S extends z.ZodType>(schema: S, value: unknown): { ok: true; value: z.infer<S> } | { ok: false; message: string } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}
