// Client.exec, attach, portForward and forwardPort against `svc up` with real containers: the
// client speaks WebSocket (v5.channel.k8s.io / v4) to the API server, which hands the upgrade to
// the node agent, which reaches containerd. Output, exit codes, stdin to its end, a refused
// request's Status, and a server listening inside a pod reached through a local port.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type Pod } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { eventually } from '../controllers/support.js';
import { spawnUp, type UpProcess } from '../support/svc-up.js';

// Short: containerd's socket lives under it and unix socket paths are capped at 107 bytes.
const dir = mkdtempSync('/tmp/svc-streams-');
let up: UpProcess | undefined;
let client: Client;

const BUSYBOX = 'svc.local/busybox:latest';
const pod = (name: string, container: Record<string, unknown>): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', ...container }] },
  }) as Pod;

async function running(name: string): Promise<void> {
  await eventually(async () => (await client.get(builtin.pods, name)).status?.containerStatuses?.[0]?.ready === true, `pod ${name} to be ready`, 90_000);
}

/** Everything a stream carries until it ends. */
async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  up = spawnUp(dir);
  await up.line((line) => line.startsWith('  kubectl'));
  client = await Client.fromSvcconfig(join(dir, 'admin.svcconfig'));
  await eventually(async () => (await client.list(builtin.nodes)).items.some((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')), 'the node to be Ready', 90_000);
  await client.create(builtin.pods, pod('sleeper', { command: ['sleep', '3600'] }));
  await client.create(builtin.pods, pod('web', { command: ['sh', '-c', 'mkdir -p /www && echo hello-from-pod > /www/index.html && exec httpd -f -p 8080 -h /www'] }));
  await client.create(builtin.pods, pod('echoer', { command: ['sh', '-c', 'while read line; do echo "echo:$line"; done'], stdin: true }));
  await Promise.all([running('sleeper'), running('web'), running('echoer')]);
}, 240_000);

afterAll(async () => {
  await client?.destroy();
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGTERM');
    await up.exited;
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('Client.exec', () => {
  it('echo hi: stdout, nothing on stderr, exit code 0, over v5.channel.k8s.io', async () => {
    const session = await client.exec('sleeper', ['echo', 'hi']);
    expect(session.protocol).toBe('v5.channel.k8s.io');
    expect(session.stdin).toBeUndefined();
    const [out, err, result] = await Promise.all([text(session.stdout), text(session.stderr), session.result]);
    expect(out).toBe('hi\n');
    expect(err).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.status['status']).toBe('Success');
  }, 60_000);

  it("a non-zero exit: the code from the error channel's Status, stderr apart from stdout", async () => {
    const session = await client.exec('sleeper', ['sh', '-c', 'echo out; echo oops >&2; exit 3']);
    const [out, err, result] = await Promise.all([text(session.stdout), text(session.stderr), session.result]);
    expect(out).toBe('out\n');
    expect(err).toBe('oops\n');
    expect(result.exitCode).toBe(3);
    expect(result.status['reason']).toBe('NonZeroExitCode');
  }, 60_000);

  it('stdin round trip: what is written reaches the command, and ending stdin lets cat finish', async () => {
    const session = await client.exec('sleeper', ['cat'], { stdin: true });
    const out = text(session.stdout);
    session.stdin!.write('ping\n');
    session.stdin!.end('pong\n');
    expect(await out).toBe('ping\npong\n');
    expect((await session.result).exitCode).toBe(0);
  }, 60_000);

  it('a pod that does not exist: the server refuses the upgrade with a 404 Status', async () => {
    const error = await client.exec('no-such-pod', ['true']).catch((e: unknown) => e);
    expect(isStatusError(error) && error.code).toBe(404);
    await expect(client.exec('sleeper', [])).rejects.toThrow(TypeError);
  }, 60_000);
});

describe('Client.attach', () => {
  it("writes to a running container's stdin and reads what it answers", async () => {
    const session = await client.attach('echoer', { stdin: true, stderr: false });
    const lines: string[] = [];
    session.stdout.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    // Typed again until answered: containerd copies an attach's stdin before it adds the attach
    // to the container's stdout, so the answer to a line sent at once can go to no one.
    const typing = setInterval(() => session.stdin!.write('one\n'), 200);
    session.stdin!.write('one\n');
    try {
      await eventually(() => lines.join('').includes('echo:one\n'), 'the echo');
    } finally {
      clearInterval(typing);
    }
    session.close();
    await text(session.stdout);
  }, 60_000);
});

describe('Client port-forward', () => {
  it('forwardPort: a local listener whose connections reach the server listening in the pod, one after another', async () => {
    const forwarder = await client.forwardPort('web', 8080);
    try {
      expect(forwarder.port).toBeGreaterThan(0);
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${forwarder.port}/index.html`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('hello-from-pod\n');
      }
    } finally {
      await forwarder.close();
    }
    // Closed: nothing listens there any more.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(forwarder.port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  }, 60_000);

  it('portForward: a Duplex per port, without the port prefix the server starts each channel with', async () => {
    const session = await client.portForward('web', [8080]);
    const stream = session.stream(8080);
    stream.write('GET /index.html HTTP/1.0\r\n\r\n');
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    await eventually(() => Buffer.concat(chunks).toString().includes('hello-from-pod'), 'the answer');
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.[01] 200 /);
    session.close();
    expect(() => session.stream(9090)).toThrow(RangeError);
  }, 60_000);
});
