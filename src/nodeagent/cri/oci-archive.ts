/**
 * Writes a single-platform image as an OCI image layout archive (`oci-layout`, `index.json`,
 * `blobs/sha256/…`), the format `ctr images import` reads. Layers are gzip-compressed at a fixed
 * level with no timestamp so the same files always give the same digests.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { writeTar, type TarEntry } from './ustar.js';

export interface ImageConfig {
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly env?: readonly string[];
  readonly workingDir?: string;
  readonly stopSignal?: string;
}

export interface ImageDefinition {
  /** Full reference the runtime will know the image by, e.g. `svc.local/busybox:latest`. */
  readonly ref: string;
  /** One layer; svc's local images need no more. */
  readonly files: readonly TarEntry[];
  readonly config: ImageConfig;
}

export interface BuiltImage {
  readonly ref: string;
  /** The OCI layout tar. */
  readonly archive: Buffer;
  /** `sha256:…` of the manifest: what the runtime reports as the image's repo digest. */
  readonly manifestDigest: string;
  /** `sha256:…` of the config: what the CRI reports as the image id. */
  readonly configDigest: string;
}

const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

const sha256 = (data: Uint8Array): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** Go's GOARCH names, which image platforms use. */
export function ociArchitecture(arch: string = process.arch): string {
  const names: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };
  const name = names[arch];
  if (!name) throw new Error(`no OCI architecture name for node's "${arch}"`);
  return name;
}

function tag(ref: string): string {
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? ref.slice(colon + 1) : 'latest';
}

export interface OciArchiveOptions {
  /** zlib level of the layer (default 9, the smallest): the same level always gives the same digests. */
  readonly gzipLevel?: number;
}

export function buildOciArchive(image: ImageDefinition, options: OciArchiveOptions = {}): BuiltImage {
  const layerTar = writeTar(image.files);
  const layer = gzipSync(layerTar, { level: options.gzipLevel ?? 9 });
  const layerDigest = sha256(layer);
  const config = Buffer.from(
    JSON.stringify({
      architecture: ociArchitecture(),
      os: 'linux',
      created: '1970-01-01T00:00:00Z',
      config: {
        ...(image.config.entrypoint ? { Entrypoint: image.config.entrypoint } : {}),
        ...(image.config.cmd ? { Cmd: image.config.cmd } : {}),
        ...(image.config.env ? { Env: image.config.env } : {}),
        ...(image.config.workingDir ? { WorkingDir: image.config.workingDir } : {}),
        ...(image.config.stopSignal ? { StopSignal: image.config.stopSignal } : {}),
      },
      rootfs: { type: 'layers', diff_ids: [sha256(layerTar)] },
      history: [{ created: '1970-01-01T00:00:00Z', created_by: 'svc build-images' }],
    }),
  );
  const configDigest = sha256(config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: { mediaType: MEDIA.config, digest: configDigest, size: config.length },
      layers: [{ mediaType: MEDIA.layer, digest: layerDigest, size: layer.length }],
    }),
  );
  const manifestDigest = sha256(manifest);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.index,
      manifests: [
        {
          mediaType: MEDIA.manifest,
          digest: manifestDigest,
          size: manifest.length,
          // containerd names the imported image after the first; other tools read the second.
          annotations: { 'io.containerd.image.name': image.ref, 'org.opencontainers.image.ref.name': tag(image.ref) },
        },
      ],
    }),
  );
  const blob = (digest: string, data: Uint8Array): TarEntry => ({ type: 'file', path: `blobs/sha256/${digest.slice(7)}`, data });
  const archive = writeTar([
    { type: 'file', path: 'oci-layout', data: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
    { type: 'file', path: 'index.json', data: index },
    { type: 'dir', path: 'blobs' },
    { type: 'dir', path: 'blobs/sha256' },
    blob(configDigest, config),
    blob(layerDigest, layer),
    blob(manifestDigest, manifest),
  ]);
  return { ref: image.ref, archive, manifestDigest, configDigest };
}
