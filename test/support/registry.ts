/**
 * A real image registry for tests: Debian's `docker-registry` (the CNCF distribution registry)
 * on 127.0.0.1 and a port the system picks (the registry binds port 0 and logs which), storing under a temp dir, optionally behind htpasswd (bcrypt
 * entries from apache2-utils' `htpasswd -B`). Images are pushed with the distribution HTTP API
 * (blob uploads, then the manifest) from OCI layout archives as svc's own OCI writer makes them.
 * scripts/provision.mjs installs both packages; when one is missing this throws (never skips).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { buildOciArchive, busyboxImage, DEFAULT_BUSYBOX_BINARY, type TarEntry } from '../../src/nodeagent/index.js';

export interface RunningRegistry {
  /** `127.0.0.1:<port>`: the registry host as image names carry it. */
  readonly host: string;
  readonly url: string;
  /** Pushes an OCI layout archive's image as `<repository>:<tag>`; returns the manifest digest. */
  push(repository: string, tag: string, archive: Buffer): Promise<string>;
  /** Requests the registry answered, as `METHOD path status` (what a test shows reached it). */
  readonly requests: () => string[];
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** user → password; the registry then demands Basic auth on every request. */
  readonly users?: Readonly<Record<string, string>>;
  /** Serve HTTPS with this certificate (for 127.0.0.1); `caPem` is what the pushes trust. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly caPem: string };
}

function requireBinary(name: string, pkg: string): void {
  if (spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0) throw new Error(`this suite needs ${name} (apt-get install -y ${pkg}); scripts/provision.mjs installs it`);
}

/** The files of a tar archive svc's ustar writer made (plain ustar headers, no extensions). */
export function readTar(archive: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let offset = 0; offset + 512 <= archive.length; ) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => {
      const raw = header.subarray(start, start + length);
      const end = raw.indexOf(0);
      return raw.subarray(0, end < 0 ? length : end).toString('utf8');
    };
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    if (type === '0' || type === '') files.set(name, archive.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/**
 * A busybox image distinct from svc's local one: `/etc/svc-image` holds `marker`, so a container
 * that prints it shows which image it runs.
 */
export function markedBusybox(marker: string): Buffer {
  const base = busyboxImage(readFileSync(DEFAULT_BUSYBOX_BINARY), ['sh', 'cat', 'echo', 'sleep']);
  const files: TarEntry[] = [...base.files, { type: 'file', path: 'etc/svc-image', data: Buffer.from(`${marker}\n`) }];
  return buildOciArchive({ ...base, ref: `marked/${marker}:latest`, files }).archive;
}

export async function startRegistry(options: RegistryOptions = {}): Promise<RunningRegistry> {
  requireBinary('docker-registry', 'docker-registry');
  const dir = mkdtempSync('/tmp/svc-registry-');
  const users = Object.entries(options.users ?? {});
  let authSection = '';
  if (users.length > 0) {
    requireBinary('htpasswd', 'apache2-utils');
    const lines = users.map(([user, password]) => {
      const made = spawnSync('htpasswd', ['-Bbn', user, password], { encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`htpasswd: ${made.stderr}`);
      return made.stdout.trim();
    });
    writeFileSync(join(dir, 'htpasswd'), `${lines.join('\n')}\n`);
    authSection = `auth:\n  htpasswd:\n    realm: svc-test\n    path: ${join(dir, 'htpasswd')}\n`;
  }
  // Port 0: the registry binds a port the system picks and logs it. A port picked here and bound by
  // the registry later could be taken in between by another test's server, and the registry exit.
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: false\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'data')}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:0\n${
      options.tls ? `  tls:\n    certificate: ${options.tls.certFile}\n    key: ${options.tls.keyFile}\n` : ''
    }${authSection}`,
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  let listening: (port: number) => void;
  const port = new Promise<number>((resolve) => (listening = resolve));
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      log.push(line);
      const bound = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (bound) listening(Number(bound[1]));
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Listening, or gone: how long it takes on a loaded machine is the caller's hook timeout's to bound.
  const bound = await Promise.race([port, exited.then(() => undefined)]);
  if (bound === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`docker-registry exited:\n${log.join('\n').slice(-3000)}`);
  }
  const host = `127.0.0.1:${bound}`;
  const url = `${options.tls ? 'https' : 'http'}://${host}`;
  const dispatcher = options.tls ? new Agent({ connect: { ca: options.tls.caPem } }) : undefined;
  const send = (target: string | URL, init: Parameters<typeof request>[1] = {}) => request(target, { ...init, ...(dispatcher ? { dispatcher } : {}) });
  const basic = users.length > 0 ? `Basic ${Buffer.from(`${users[0]![0]}:${users[0]![1]}`).toString('base64')}` : undefined;
  const headers = (extra: Record<string, string> = {}) => ({ ...(basic ? { authorization: basic } : {}), ...extra });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await dispatcher?.close();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // It logs "listening" once its socket is bound: the first request is queued until it serves.
    const res = await send(`${url}/v2/`);
    await res.body.dump();
    if (res.statusCode !== 200 && res.statusCode !== 401) throw new Error(`docker-registry answered /v2/ with ${res.statusCode}:\n${log.join('\n').slice(-3000)}`);
  } catch (error) {
    await stop();
    throw error;
  }

  const uploadBlob = async (repository: string, digest: string, data: Buffer) => {
    const head = await send(`${url}/v2/${repository}/blobs/${digest}`, { method: 'HEAD', headers: headers() });
    await head.body.dump();
    if (head.statusCode === 200) return;
    const start = await send(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: headers() });
    await start.body.dump();
    if (start.statusCode !== 202) throw new Error(`blob upload of ${digest}: ${start.statusCode}`);
    const location = new URL(String(start.headers['location']), url);
    location.searchParams.set('digest', digest);
    const put = await send(location, { method: 'PUT', headers: headers({ 'content-type': 'application/octet-stream' }), body: data });
    const text = await put.body.text();
    if (put.statusCode !== 201) throw new Error(`blob ${digest}: ${put.statusCode} ${text}`);
  };

  return {
    host,
    url,
    async push(repository, tag, archive) {
      const files = readTar(archive);
      const blob = (digest: string) => {
        const data = files.get(`blobs/sha256/${digest.slice('sha256:'.length)}`);
        if (!data) throw new Error(`archive has no blob ${digest}`);
        return data;
      };
      const index = JSON.parse(files.get('index.json')!.toString()) as { manifests: { digest: string; mediaType: string }[] };
      const descriptor = index.manifests[0]!;
      const manifestBytes = blob(descriptor.digest);
      const manifest = JSON.parse(manifestBytes.toString()) as { config: { digest: string }; layers: { digest: string }[] };
      for (const d of [manifest.config, ...manifest.layers]) await uploadBlob(repository, d.digest, blob(d.digest));
      const put = await send(`${url}/v2/${repository}/manifests/${tag}`, {
        method: 'PUT',
        headers: headers({ 'content-type': descriptor.mediaType }),
        body: manifestBytes,
      });
      const text = await put.body.text();
      if (put.statusCode !== 201) throw new Error(`manifest ${repository}:${tag}: ${put.statusCode} ${text}`);
      return descriptor.digest;
    },
    requests: () =>
      log.flatMap((line) => {
        // The access log: `"GET /v2/library/busybox/manifests/latest HTTP/1.1" 200`
        const match = /"(GET|HEAD|POST|PUT|PATCH|DELETE) (\S+) HTTP\/[\d.]+" (\d{3})/.exec(line);
        return match ? [`${match[1]} ${match[2]} ${match[3]}`] : [];
      }),
    stop,
  };
}
