/**
 * The images a node needs without a registry: `busybox` (a shell and the usual tools) and the
 * sandbox's `pause` image. Both are built from the host's static busybox (Debian's
 * busybox-static), so a fresh machine with no network can still run pods.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { buildOciArchive, type BuiltImage, type ImageDefinition } from './oci-archive.js';
import type { TarEntry } from './ustar.js';

export const BUSYBOX_IMAGE = 'svc.local/busybox:latest';
export const PAUSE_IMAGE = 'svc.local/pause:3.10';

export const DEFAULT_BUSYBOX_BINARY = '/bin/busybox';

/** `$SVC_IMAGE_CACHE`, else `$XDG_CACHE_HOME/svc/images`, else `~/.cache/svc/images`. */
export function defaultImageCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_IMAGE_CACHE) return env.SVC_IMAGE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc', 'images');
}

const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * PID 1 of a pod sandbox gets no default signal actions, so a bare `sleep` would ignore SIGTERM.
 * The shell traps TERM and INT, ends its sleep and exits 0; `wait` keeps it interruptible and
 * reaps zombies.
 */
const PAUSE_SCRIPT = "trap 'kill $! 2>/dev/null; exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";

function applets(busybox: string): string[] {
  const listed = spawnSync(busybox, ['--list'], { encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`${busybox} --list failed: ${listed.stderr || listed.error?.message}`);
  return listed.stdout.split('\n').map((s) => s.trim()).filter((s) => s.length > 0 && s !== 'busybox' && !s.includes('/'));
}

function rootDirs(): TarEntry[] {
  return [
    { type: 'dir', path: 'bin' },
    { type: 'dir', path: 'etc' },
    { type: 'dir', path: 'root', mode: 0o700 },
    { type: 'dir', path: 'tmp', mode: 0o1777 },
    { type: 'dir', path: 'var' },
    { type: 'dir', path: 'var/www' },
  ];
}

const etcFiles = (): TarEntry[] => [
  { type: 'file', path: 'etc/passwd', data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n') },
  { type: 'file', path: 'etc/group', data: Buffer.from('root:x:0:\nnogroup:x:65534:\n') },
];

export function busyboxImage(binary: Uint8Array, appletNames: readonly string[]): ImageDefinition {
  return {
    ref: BUSYBOX_IMAGE,
    files: [
      ...rootDirs(),
      { type: 'file', path: 'bin/busybox', data: binary, mode: 0o755 },
      ...appletNames.map((name): TarEntry => ({ type: 'symlink', path: `bin/${name}`, target: 'busybox' })),
      ...etcFiles(),
    ],
    config: { cmd: ['sh'], env: [PATH_ENV] },
  };
}

export function pauseImage(binary: Uint8Array): ImageDefinition {
  return {
    ref: PAUSE_IMAGE,
    files: [
      { type: 'dir', path: 'bin' },
      { type: 'file', path: 'bin/busybox', data: binary, mode: 0o755 },
      { type: 'symlink', path: 'bin/sh', target: 'busybox' },
      { type: 'symlink', path: 'bin/sleep', target: 'busybox' },
    ],
    config: { entrypoint: ['/bin/sh', '-c', PAUSE_SCRIPT], env: [PATH_ENV], stopSignal: 'SIGTERM' },
  };
}

/**
 * Whether an ELF executable needs a dynamic loader (has a PT_INTERP program header). The images
 * carry no libc, so a dynamically linked busybox would fail in them with a bare "no such file".
 */
export function isDynamicallyLinked(elf: Buffer): boolean {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF executable');
  const is64 = elf[4] === 2;
  const little = elf[5] === 1;
  const u16 = (o: number) => (little ? elf.readUInt16LE(o) : elf.readUInt16BE(o));
  const u32 = (o: number) => (little ? elf.readUInt32LE(o) : elf.readUInt32BE(o));
  const phoff = is64 ? Number(little ? elf.readBigUInt64LE(0x20) : elf.readBigUInt64BE(0x20)) : u32(0x1c);
  const phentsize = u16(is64 ? 0x36 : 0x2a);
  const phnum = u16(is64 ? 0x38 : 0x2c);
  const PT_INTERP = 3;
  for (let i = 0; i < phnum; i++) if (u32(phoff + i * phentsize) === PT_INTERP) return true;
  return false;
}

export interface LocalImageArchive {
  readonly ref: string;
  /** Path of the OCI layout tar in the cache directory. */
  readonly path: string;
  readonly manifestDigest: string;
  readonly configDigest: string;
}

export interface LocalImages {
  readonly busybox: LocalImageArchive;
  readonly pause: LocalImageArchive;
}

function archiveName(ref: string): string {
  return `${ref.replace(/[/:]/g, '_')}.oci.tar`;
}

function save(cacheDir: string, image: BuiltImage): LocalImageArchive {
  const path = join(cacheDir, archiveName(image.ref));
  const meta = `${path}.json`;
  const record = { ref: image.ref, path, manifestDigest: image.manifestDigest, configDigest: image.configDigest };
  // Archives are reproducible: one whose manifest digest is unchanged is left alone.
  if (existsSync(path) && existsSync(meta)) {
    const known = JSON.parse(readFileSync(meta, 'utf8')) as { manifestDigest?: string };
    if (known.manifestDigest === image.manifestDigest) return record;
  }
  // Written beside and renamed, so a concurrent reader never sees half an archive.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, image.archive);
  renameSync(tmp, path);
  writeFileSync(meta, `${JSON.stringify(record)}\n`);
  return record;
}

/**
 * These archives are built at every `svc up` and every test's containerd start, synchronously,
 * and only ever imported into a runtime on this host: gzip level 1 takes a third of level 9's CPU
 * for the busybox layer (30 vs 98 ms) and makes it 5 % larger.
 */
const LOCAL_ARCHIVE_OPTIONS = { gzipLevel: 1 } as const;

/**
 * Builds (or finds up to date in `cacheDir`) the busybox and pause archives from the static
 * busybox binary at `busybox` (default `/bin/busybox`; it must be statically linked, since the
 * images carry no libc).
 */
export function buildLocalImages(cacheDir: string, busybox: string = DEFAULT_BUSYBOX_BINARY): LocalImages {
  if (!existsSync(busybox)) throw new Error(`${busybox} is missing: install a static busybox (Debian: apt-get install busybox-static)`);
  const binary = readFileSync(busybox);
  if (isDynamicallyLinked(binary)) throw new Error(`${busybox} is dynamically linked; the images need a static busybox (Debian: apt-get install busybox-static)`);
  mkdirSync(cacheDir, { recursive: true });
  return {
    busybox: save(cacheDir, buildOciArchive(busyboxImage(binary, applets(busybox)), LOCAL_ARCHIVE_OPTIONS)),
    pause: save(cacheDir, buildOciArchive(pauseImage(binary), LOCAL_ARCHIVE_OPTIONS)),
  };
}
