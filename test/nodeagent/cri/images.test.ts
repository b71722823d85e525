/**
 * svc's own image archives, checked with independent tools: GNU tar reads the ustar output, the
 * OCI layout's blobs hash to their names, and the same input always gives the same digests.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUSYBOX_IMAGE,
  PAUSE_IMAGE,
  buildLocalImages,
  buildOciArchive,
  busyboxImage,
  isDynamicallyLinked,
  ociArchitecture,
  pauseImage,
  writeTar,
} from '../../../src/nodeagent/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'svc-images-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const sha256 = (data: Uint8Array) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

function untar(archive: Buffer): string {
  const dir = mkdtempSync(join(scratch, 'x-'));
  const file = join(dir, '..', `${dir.split('/').pop()}.tar`);
  writeFileSync(file, archive);
  const result = spawnSync('tar', ['-xf', file, '-C', dir], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return dir;
}

describe('ustar writer', () => {
  it('writes files, directories, symlinks and modes that GNU tar extracts as written', () => {
    const dir = untar(
      writeTar([
        { type: 'dir', path: 'bin' },
        { type: 'file', path: 'bin/tool', data: Buffer.from('#!/bin/sh\necho tool\n'), mode: 0o755 },
        { type: 'symlink', path: 'bin/alias', target: 'tool' },
        { type: 'dir', path: 'tmp', mode: 0o1777 },
        { type: 'file', path: 'empty', data: new Uint8Array() },
      ]),
    );
    expect(readFileSync(join(dir, 'bin/tool'), 'utf8')).toBe('#!/bin/sh\necho tool\n');
    expect(statSync(join(dir, 'bin/tool')).mode & 0o7777).toBe(0o755);
    expect(readlinkSync(join(dir, 'bin/alias'))).toBe('tool');
    expect(statSync(join(dir, 'tmp')).mode & 0o7777).toBe(0o1777);
    expect(readFileSync(join(dir, 'empty')).length).toBe(0);
  });

  it('splits a path longer than 100 bytes into the ustar prefix field', () => {
    const long = `${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(60)}.txt`;
    const dir = untar(writeTar([{ type: 'file', path: long, data: Buffer.from('deep') }]));
    expect(readFileSync(join(dir, long), 'utf8')).toBe('deep');
  });

  it('pads every entry to 512-byte blocks and ends with two zero blocks', () => {
    const tar = writeTar([{ type: 'file', path: 'f', data: Buffer.from('x'.repeat(513)) }]);
    expect(tar.length).toBe(512 + 1024 + 1024);
    expect(tar.subarray(tar.length - 1024).every((b) => b === 0)).toBe(true);
  });

  it('refuses a path ustar cannot hold', () => {
    expect(() => writeTar([{ type: 'file', path: 'x'.repeat(300), data: new Uint8Array() }])).toThrow(/too long/);
  });
});

describe('OCI layout archives', () => {
  const binary = readFileSync('/bin/busybox');
  const image = buildOciArchive(busyboxImage(binary, ['sh', 'sleep', 'httpd']));

  it('are reproducible: the same files give the same bytes and digests', () => {
    const again = buildOciArchive(busyboxImage(binary, ['sh', 'sleep', 'httpd']));
    expect(again.manifestDigest).toBe(image.manifestDigest);
    expect(again.archive.equals(image.archive)).toBe(true);
  });

  it('hold an index naming the image, and blobs that hash to their names', () => {
    const dir = untar(image.archive);
    expect(JSON.parse(readFileSync(join(dir, 'oci-layout'), 'utf8'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0].digest).toBe(image.manifestDigest);
    expect(index.manifests[0].annotations['io.containerd.image.name']).toBe(BUSYBOX_IMAGE);
    expect(index.manifests[0].annotations['org.opencontainers.image.ref.name']).toBe('latest');
    const blob = (digest: string) => readFileSync(join(dir, 'blobs/sha256', digest.slice('sha256:'.length)));
    const manifestBytes = blob(image.manifestDigest);
    expect(sha256(manifestBytes)).toBe(image.manifestDigest);
    expect(index.manifests[0].size).toBe(manifestBytes.length);
    const manifest = JSON.parse(manifestBytes.toString());
    expect(manifest.config.digest).toBe(image.configDigest);
    const config = JSON.parse(blob(image.configDigest).toString());
    expect(config).toMatchObject({ os: 'linux', architecture: ociArchitecture(), config: { Cmd: ['sh'] } });
    const layer = blob(manifest.layers[0].digest);
    expect(sha256(layer)).toBe(manifest.layers[0].digest);
    expect(manifest.layers[0].size).toBe(layer.length);
    // The config names the layer by the digest of its uncompressed tar (its diff id).
    expect(config.rootfs.diff_ids).toEqual([sha256(gunzipSync(layer))]);
  });

  it('give busybox its applets as symlinks and a passwd file', () => {
    const dir = untar(image.archive);
    const manifest = JSON.parse(readFileSync(join(dir, 'blobs/sha256', image.manifestDigest.slice(7)), 'utf8'));
    const layer = gunzipSync(readFileSync(join(dir, 'blobs/sha256', manifest.layers[0].digest.slice(7))));
    const rootfs = untar(layer);
    expect(readlinkSync(join(rootfs, 'bin/sh'))).toBe('busybox');
    expect(readlinkSync(join(rootfs, 'bin/httpd'))).toBe('busybox');
    expect(readFileSync(join(rootfs, 'bin/busybox')).equals(binary)).toBe(true);
    expect(readFileSync(join(rootfs, 'etc/passwd'), 'utf8')).toMatch(/^root:x:0:0:/);
    expect(statSync(join(rootfs, 'tmp')).mode & 0o7777).toBe(0o1777);
  });

  it('make pause a shell that exits on SIGTERM and SIGINT', () => {
    const pause = pauseImage(binary);
    expect(pause.ref).toBe(PAUSE_IMAGE);
    expect(pause.config.entrypoint?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    // The script runs under the host's busybox the same way: each signal ends it with status 0.
    for (const signal of ['TERM', 'INT']) {
      const run = spawnSync('/bin/busybox', ['sh', '-c', `(sleep 0.2; kill -${signal} $$) & ${pause.config.entrypoint?.[2]}`], { stdio: 'ignore', timeout: 30_000 });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(0);
    }
  });
});

describe('local images', () => {
  it('are built into the cache directory once and reused while unchanged', () => {
    const cache = join(scratch, 'cache');
    const first = buildLocalImages(cache);
    const mtime = statSync(first.busybox.path).mtimeMs;
    const second = buildLocalImages(cache);
    expect(second).toEqual(first);
    expect(statSync(second.busybox.path).mtimeMs).toBe(mtime);
    expect(first.pause.ref).toBe(PAUSE_IMAGE);
  });

  it('refuse a dynamically linked busybox, which could not run in an image without libc', () => {
    expect(isDynamicallyLinked(readFileSync('/bin/busybox'))).toBe(false);
    expect(isDynamicallyLinked(readFileSync(process.execPath))).toBe(true);
    expect(() => buildLocalImages(join(scratch, 'dyn'), process.execPath)).toThrow(/dynamically linked/);
  });

  it('name a missing busybox and the package that provides it', () => {
    expect(() => buildLocalImages(join(scratch, 'none'), '/nonexistent/busybox')).toThrow(/busybox-static/);
  });
});
