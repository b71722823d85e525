import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { isStatusError, type Pod } from '../../api/index.js';
import { writeAtomically, type FileProjection } from './atomic-writer.js';
import { mountFailed, sourceNotFound } from './config-errors.js';
import { memoryVolumeSize } from './memory-size.js';
import { checkHostPath } from './host-path.js';
import { claimVolume } from './claim-volume.js';
import type { PodObjectReader } from './object-reader.js';
import { volumeDirOf } from './paths.js';
import { DEFAULT_MODE, downwardAPIPayload, keyedPayload } from './payloads.js';
import { projectedToken } from './projected-token.js';
import {
  configMapVolumeSourceSchema,
  downwardAPIVolumeSourceSchema,
  emptyDirVolumeSourceSchema,
  hostPathVolumeSourceSchema,
  parseSource,
  projectedVolumeSourceSchema,
  secretVolumeSourceSchema,
} from './sources.js';
import { ensureVolumeDir } from './volume-dir.js';

type Volume = NonNullable<Pod['spec']['volumes']>[number];

export interface VolumeContext {
  readonly pod: Pod;
  readonly podDir: string;
  readonly objects: PodObjectReader;
  readonly nodeAllocatable: Readonly<Record<string, string>>;
  readonly now: number;
  /** The pod's `securityContext.fsGroup`, applied to every volume but hostPath. */
  readonly fsGroup?: number | undefined;
  /** false: no tmpfs for memory-backed volumes (`PodVolumesContext.memoryBacked`); default true. */
  readonly memoryBacked?: boolean | undefined;
  /** `PodVolumesContext.writtenPayloads`: a volume dir whose payload is the one last written is left as it is. */
  readonly writtenPayloads?: Map<string, string> | undefined;
  /** false: no directory or file is made (`PodVolumesContext.writeFiles`); default true. */
  readonly writeFiles?: boolean | undefined;
}

/** A volume once set up: the host path containers mount, and whether it is API data (always read-only). */
export interface PreparedVolume {
  readonly hostPath: string;
  readonly apiData: boolean;
  /** Mounted read-only in every container (a claim mounted `readOnly`). */
  readonly readOnly?: boolean;
  /** Nothing is on the disk at `hostPath` (a hollow node's emptyDir and API-data volumes): a subPath is named, not made. */
  readonly unwritten?: boolean;
}

// emptyDir is writable by any user of the pod, as in Kubernetes; the API-data volumes are read-only mounts.
const EMPTY_DIR_MODE = 0o777;
const DATA_DIR_MODE = 0o755;

/**
 * Sets up one volume (or refreshes its content) and says where it is. Any failure is a StatusError
 * with reason `FailedMount` and the kubelet's `MountVolume.SetUp failed for volume "v" : why`.
 */
export async function setUpVolume(volume: Volume, ctx: VolumeContext): Promise<PreparedVolume> {
  try {
    return await setUp(volume, ctx);
  } catch (error) {
    if (isStatusError(error, 'FailedMount')) throw error;
    throw mountFailed(volume.name, error instanceof Error ? error.message : String(error), error);
  }
}

async function setUp(volume: Volume, ctx: VolumeContext): Promise<PreparedVolume> {
  const namespace = ctx.pod.metadata.namespace ?? 'default';
  if (volume.hostPath !== undefined) {
    const source = parsed(hostPathVolumeSourceSchema, volume.hostPath, 'hostPath');
    await checkHostPath(source.path, source.type);
    return { hostPath: source.path, apiData: false };
  }
  if (volume.persistentVolumeClaim !== undefined || volume.ephemeral !== undefined) {
    const mount = await claimVolume(volume, ctx.pod, ctx.objects);
    return { hostPath: mount.hostPath, apiData: false, readOnly: mount.readOnly };
  }
  if (volume.emptyDir !== undefined) {
    const source = parsed(emptyDirVolumeSourceSchema, volume.emptyDir, 'emptyDir');
    const dir = volumeDirOf(ctx.podDir, 'emptyDir', volume.name);
    const memory = source.medium === 'Memory' && ctx.memoryBacked !== false;
    const sizeBytes = memory ? memoryVolumeSize(ctx.pod, ctx.nodeAllocatable, source.sizeLimit) : undefined;
    if (ctx.writeFiles === false) return { hostPath: dir, apiData: false, unwritten: true };
    await ensureVolumeDir(dir, { memory, sizeBytes, mode: EMPTY_DIR_MODE, fsGroup: ctx.fsGroup });
    return { hostPath: dir, apiData: false };
  }
  if (volume.configMap !== undefined) {
    const source = parsed(configMapVolumeSourceSchema, volume.configMap, 'configMap');
    const object = await ctx.objects.configMap(namespace, source.name);
    if (!object && !source.optional) throw sourceNotFound('ConfigMap', source.name);
    const payload = keyedPayload('ConfigMap', object, source.items, source.defaultMode ?? DEFAULT_MODE, source.optional ?? false);
    return written(volumeDirOf(ctx.podDir, 'configMap', volume.name), payload, false, ctx);
  }
  if (volume.secret !== undefined) {
    const source = parsed(secretVolumeSourceSchema, volume.secret, 'secret');
    const object = await ctx.objects.secret(namespace, source.secretName);
    if (!object && !source.optional) throw sourceNotFound('Secret', source.secretName);
    const payload = keyedPayload('Secret', object, source.items, source.defaultMode ?? DEFAULT_MODE, source.optional ?? false);
    // Secrets stay off the disk: a tmpfs, as the kubelet does.
    return written(volumeDirOf(ctx.podDir, 'secret', volume.name), payload, true, ctx);
  }
  if (volume.downwardAPI !== undefined) {
    const source = parsed(downwardAPIVolumeSourceSchema, volume.downwardAPI, 'downwardAPI');
    const payload = downwardAPIPayload(ctx.pod, source.items, source.defaultMode ?? DEFAULT_MODE, ctx.nodeAllocatable);
    return written(volumeDirOf(ctx.podDir, 'downwardAPI', volume.name), payload, false, ctx);
  }
  if (volume.projected !== undefined) {
    const source = parsed(projectedVolumeSourceSchema, volume.projected, 'projected');
    const dir = volumeDirOf(ctx.podDir, 'projected', volume.name);
    const defaultMode = source.defaultMode ?? DEFAULT_MODE;
    const payload = new Map<string, FileProjection>();
    // Later sources win a path two of them write, as in Kubernetes.
    for (const projection of source.sources ?? []) {
      let part: Map<string, FileProjection>;
      if (projection.configMap) {
        const { name, items, optional } = projection.configMap;
        const object = await ctx.objects.configMap(namespace, name);
        if (!object && !optional) throw sourceNotFound('ConfigMap', name);
        part = keyedPayload('ConfigMap', object, items, defaultMode, optional ?? false);
      } else if (projection.secret) {
        const { name, items, optional } = projection.secret;
        const object = await ctx.objects.secret(namespace, name);
        if (!object && !optional) throw sourceNotFound('Secret', name);
        part = keyedPayload('Secret', object, items, defaultMode, optional ?? false);
      } else if (projection.downwardAPI) {
        part = downwardAPIPayload(ctx.pod, projection.downwardAPI.items, defaultMode, ctx.nodeAllocatable);
      } else if (projection.serviceAccountToken) {
        const tokenSource = projection.serviceAccountToken;
        // With remembered writes the token is kept beside the payloads' digests (under the volume dir's key, so a teardown drops it too).
        const tokenKey = `${dir}/\0token\0${tokenSource.path}`;
        const token = await projectedToken(dir, ctx.pod, tokenSource, ctx.objects, ctx.now, ctx.writtenPayloads ? (ctx.writtenPayloads.get(tokenKey) ?? null) : undefined);
        ctx.writtenPayloads?.set(tokenKey, token);
        // With an fsGroup the token is for the owner (and, through the group bits, the group) alone.
        part = new Map([[tokenSource.path, { data: Buffer.from(token, 'utf8'), mode: ctx.fsGroup === undefined ? defaultMode : 0o600 }]]);
      } else {
        continue;
      }
      for (const [path, file] of part) payload.set(path, file);
    }
    return written(dir, payload, true, ctx);
  }
  const kind = Object.keys(volume).find((key) => key !== 'name');
  throw new Error(kind ? `volume type ${kind} is not supported by this node agent` : 'the volume names no source');
}

async function written(dir: string, payload: ReadonlyMap<string, FileProjection>, wantsMemory: boolean, ctx: VolumeContext): Promise<PreparedVolume> {
  // The payload was made (its objects read, its token asked for, a missing source an error) and
  // is dropped here: nothing reads a hollow node's volumes.
  if (ctx.writeFiles === false) return { hostPath: dir, apiData: true, unwritten: true };
  const memory = wantsMemory && ctx.memoryBacked !== false;
  const { fsGroup } = ctx;
  const digest = ctx.writtenPayloads ? payloadDigest(payload, fsGroup, memory) : undefined;
  if (digest !== undefined && ctx.writtenPayloads?.get(dir) === digest) return { hostPath: dir, apiData: true };
  await ensureVolumeDir(dir, {
    memory,
    sizeBytes: memory ? memoryVolumeSize(ctx.pod, ctx.nodeAllocatable, undefined) : undefined,
    mode: fsGroup === undefined ? DATA_DIR_MODE : DATA_DIR_MODE | 0o550,
    fsGroup,
  });
  await writeAtomically(dir, payload, { fsGroup });
  if (digest !== undefined) ctx.writtenPayloads?.set(dir, digest);
  return { hostPath: dir, apiData: true };
}

/** What decides a volume's files: each path, mode and content, and the dir's owner and kind. */
function payloadDigest(payload: ReadonlyMap<string, FileProjection>, fsGroup: number | undefined, memory: boolean): string {
  const hash = createHash('sha256').update(`${fsGroup ?? ''}|${memory}`);
  for (const [path, file] of [...payload].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`\0${path}\0${file.mode}\0`).update(file.data);
  return hash.digest('base64');
}

/**
 * Volume sources parsed, by kind and JSON. Every sync of every pod sets its volumes up again, and
 * a node's pods name few distinct sources (every pod's API-access volume is the same projection:
 * its token, kube-root-ca.crt, its namespace), so the JSON of a source is cheaper to make than
 * its parse. The parsed sources are shared and only read. Cleared when full.
 */
const parsedSources = new Map<string, unknown>();
const PARSED_SOURCES_MAX = 1_000;

function parsed<S extends Parameters<typeof parseSource>[0]>(schema: S, value: unknown, what: string) {
  const key = `${what}\0${JSON.stringify(value)}`;
  const known = parsedSources.get(key);
  if (known !== undefined) return known as z.infer<S>;
  const result = parseSource(schema, value);
  if (!result.ok) throw new Error(`invalid ${what} source: ${result.message}`);
  if (parsedSources.size >= PARSED_SOURCES_MAX) parsedSources.clear();
  parsedSources.set(key, result.value);
  return result.value as z.infer<S>;
}
