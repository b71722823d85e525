/**
 * Probe actions against real local servers on 127.0.0.1 (the pod IP in these tests): httpGet over
 * HTTP and HTTPS, tcpSocket, gRPC health; what counts as success, messages, ports by name,
 * headers, redirects, the body cap, and malformed probes.
 */
import https from 'node:https';
import type net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../../src/api/index.js';
import { healthPortCertificate } from '../../../src/cli/self-signed.js';
import { CriClient, MAX_BODY_BYTES, PROBE_USER_AGENT, runProbe, type Probe, type ProbeTarget } from '../../../src/nodeagent/index.js';
import { closedPort, podWith, startHttpServer, startTcpServer, targetOf, type TestHttpServer } from './support.js';

// Never dialled by these actions; runProbe wants a runtime for exec only.
const cri = new CriClient({ endpoint: '/nonexistent/cri.sock' });
const run = (probe: Probe, target: ProbeTarget) => runProbe(probe, target, { cri, timeoutSeconds: 5 });
const web = (probe: Probe, ports = [{ name: 'http', containerPort: 1 }]) => targetOf(podWith({ ports, livenessProbe: probe }));

let server: TestHttpServer;
beforeAll(async () => {
  server = await startHttpServer();
});
afterAll(async () => {
  await server.close();
  cri.close();
});
afterEach(() => {
  server.requests.length = 0;
  server.handle = (_req, res) => res.end('ok');
});

describe('httpGet', () => {
  it('a 200 is success, with the body as the message', async () => {
    await expect(run({ httpGet: { port: server.port, path: '/healthz' } }, web({}))).resolves.toEqual({ result: 'success', message: 'ok' });
    expect(server.requests.map((r) => [r.method, r.url])).toEqual([['GET', '/healthz']]);
  });

  it.each([
    [200, 'success'],
    [204, 'success'],
    [302, 'success'],
    [399, 'success'],
    [400, 'failure'],
    [404, 'failure'],
    [500, 'failure'],
    [503, 'failure'],
  ] as const)('status %i is %s', async (status, result) => {
    server.handle = (_req, res) => {
      res.statusCode = status;
      res.end();
    };
    const outcome = await run({ httpGet: { port: server.port } }, web({}));
    expect(outcome.result).toBe(result);
    if (result === 'failure') expect(outcome.message).toBe(`HTTP probe failed with statuscode: ${status}`);
  });

  it('the path defaults to / and gains a leading slash; the query is kept', async () => {
    await run({ httpGet: { port: server.port } }, web({}));
    await run({ httpGet: { port: server.port, path: 'ready?full=1' } }, web({}));
    expect(server.requests.map((r) => r.url)).toEqual(['/', '/ready?full=1']);
  });

  it("sends the kubelet's User-Agent and Accept, the pod's headers, and lets them replace ours", async () => {
    await run({ httpGet: { port: server.port, httpHeaders: [{ name: 'X-Custom', value: 'a' }] } }, web({}));
    await run(
      { httpGet: { port: server.port, httpHeaders: [{ name: 'User-Agent', value: 'mine' }, { name: 'Accept', value: 'text/plain' }, { name: 'Host', value: 'app.example' }] } },
      web({}),
    );
    const [first, second] = server.requests;
    expect(first?.headers).toMatchObject({ 'user-agent': PROBE_USER_AGENT, accept: '*/*', 'x-custom': 'a', host: `127.0.0.1:${server.port}`, connection: 'close' });
    expect(second?.headers).toMatchObject({ 'user-agent': 'mine', accept: 'text/plain', host: 'app.example' });
  });

  it('connects to the pod IP by default, or to the host the action names', async () => {
    const noIp = { ...web({}), podIP: undefined };
    await expect(run({ httpGet: { port: server.port } }, noIp)).rejects.toSatisfy((e) => isStatusError(e, 'ServiceUnavailable'));
    await expect(run({ httpGet: { port: server.port, host: '127.0.0.1' } }, noIp)).resolves.toMatchObject({ result: 'success' });
  });

  it('finds a port by the name of a container port, or a number written as a string', async () => {
    const target = web({}, [{ name: 'http', containerPort: server.port }]);
    await expect(run({ httpGet: { port: 'http' } }, target)).resolves.toMatchObject({ result: 'success' });
    await expect(run({ httpGet: { port: String(server.port) } }, target)).resolves.toMatchObject({ result: 'success' });
    await expect(run({ httpGet: { port: 'metrics' } }, target)).rejects.toSatisfy((e) => isStatusError(e, 'Invalid') && /no port named "metrics"/.test((e as Error).message));
  });

  it('follows redirects to the same host, even to another port', async () => {
    const other = await startHttpServer();
    try {
      other.handle = (_req, res) => res.end('landed');
      server.handle = (req, res) => {
        res.statusCode = 302;
        res.setHeader('location', req.url === '/' ? '/next' : `http://127.0.0.1:${other.port}/final`);
        res.end();
      };
      await expect(run({ httpGet: { port: server.port } }, web({}))).resolves.toEqual({ result: 'success', message: 'landed' });
      expect(server.requests.map((r) => r.url)).toEqual(['/', '/next']);
      expect(other.requests.map((r) => [r.url, r.headers['user-agent']])).toEqual([['/final', PROBE_USER_AGENT]]);
    } finally {
      await other.close();
    }
  });

  it('a redirect to another host ends the probe as success without following it', async () => {
    server.handle = (_req, res) => {
      res.statusCode = 301;
      res.setHeader('location', `http://localhost:${server.port}/elsewhere`);
      res.end('moved');
    };
    await expect(run({ httpGet: { port: server.port } }, web({}))).resolves.toEqual({ result: 'success', message: 'Probe terminated redirects, Response body: moved' });
    expect(server.requests).toHaveLength(1);
  });

  it('a redirect loop fails after 10 redirects', async () => {
    server.handle = (_req, res) => {
      res.statusCode = 307;
      res.setHeader('location', '/again');
      res.end();
    };
    const outcome = await run({ httpGet: { port: server.port } }, web({}));
    expect(outcome).toMatchObject({ result: 'failure' });
    expect(outcome.message).toMatch(/stopped after 10 redirects/);
    expect(server.requests).toHaveLength(11);
  });

  it('reads no more of a large body than the cap', async () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    server.handle = (_req, res) => res.end(big);
    const outcome = await run({ httpGet: { port: server.port } }, web({}));
    expect(outcome.result).toBe('success');
    expect(outcome.message.length).toBe(MAX_BODY_BYTES);
  });

  it('a refused connection is failure naming the URL', async () => {
    const port = await closedPort();
    const outcome = await run({ httpGet: { port, path: '/h' } }, web({}));
    expect(outcome.result).toBe('failure');
    expect(outcome.message).toMatch(new RegExp(`^Get "http://127\\.0\\.0\\.1:${port}/h": .*ECONNREFUSED`));
  });

  it('HTTPS does not verify the certificate', async () => {
    const { cert, key } = healthPortCertificate('not-the-pod');
    const tls = https.createServer({ cert, key }, (_req, res) => res.end('secure'));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const port = (tls.address() as net.AddressInfo).port;
      await expect(run({ httpGet: { port, scheme: 'HTTPS' } }, web({}))).resolves.toEqual({ result: 'success', message: 'secure' });
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });
});

describe('tcpSocket', () => {
  it('a connection is success; the port may be named', async () => {
    const tcp = await startTcpServer();
    try {
      await expect(run({ tcpSocket: { port: tcp.port } }, web({}))).resolves.toEqual({ result: 'success', message: '' });
      await expect(run({ tcpSocket: { port: 'svc' } }, web({}, [{ name: 'svc', containerPort: tcp.port }]))).resolves.toMatchObject({ result: 'success' });
      expect(tcp.connections()).toBe(2);
    } finally {
      await tcp.close();
    }
  });

  it('a refused connection is failure', async () => {
    const port = await closedPort();
    const outcome = await run({ tcpSocket: { port } }, web({}));
    expect(outcome.result).toBe('failure');
    expect(outcome.message).toMatch(new RegExp(`^dial tcp 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
  });
});

describe('grpc', () => {
  let grpcServer: grpc.Server;
  let port = 0;
  const statuses: Record<string, number> = { '': 1, sick: 2 };

  beforeAll(async () => {
    grpcServer = new grpc.Server();
    const check: grpc.MethodDefinition<{ service: string }, number> = {
      path: '/grpc.health.v1.Health/Check',
      requestStream: false,
      responseStream: false,
      requestSerialize: ({ service }) => Buffer.from(protobuf.Writer.create().uint32(10).string(service).finish()),
      requestDeserialize: (bytes) => {
        const reader = protobuf.Reader.create(bytes);
        let service = '';
        while (reader.pos < reader.len) {
          const tag = reader.uint32();
          if (tag === 10) service = reader.string();
          else reader.skipType(tag & 7);
        }
        // An object: grpc-js takes a falsy request for a missing one.
        return { service };
      },
      responseSerialize: (status) => Buffer.from(protobuf.Writer.create().uint32(8).int32(status).finish()),
      responseDeserialize: (bytes) => protobuf.Reader.create(bytes).skip(1).int32(),
    };
    grpcServer.addService({ Check: check }, {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, number>, callback: grpc.sendUnaryData<number>) => {
        const status = statuses[call.request.service];
        if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        else callback(null, status);
      },
    });
    port = await new Promise<number>((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  });
  afterAll(() => grpcServer.forceShutdown());

  it('SERVING is success', async () => {
    await expect(run({ grpc: { port } }, web({}))).resolves.toEqual({ result: 'success', message: '' });
  });

  it('NOT_SERVING is failure naming the status', async () => {
    await expect(run({ grpc: { port, service: 'sick' } }, web({}))).resolves.toEqual({ result: 'failure', message: 'service unhealthy (responded with "NOT_SERVING")' });
  });

  it('an error of the call, or nobody listening, is failure', async () => {
    const unknown = await run({ grpc: { port, service: 'nope' } }, web({}));
    expect(unknown.result).toBe('failure');
    expect(unknown.message).toMatch(/unknown service/);
    const closed = await run({ grpc: { port: await closedPort() } }, web({}));
    expect(closed.result).toBe('failure');
  });
});

describe('malformed probes', () => {
  it('a probe without a handler, or with a malformed one, cannot run: a 422', async () => {
    await expect(run({ periodSeconds: 3 }, web({}))).rejects.toSatisfy((e) => isStatusError(e, 'Invalid'));
    await expect(run({ httpGet: { path: '/' } }, web({}))).rejects.toSatisfy((e) => isStatusError(e, 'Invalid') && /httpGet\.port/.test((e as Error).message));
    await expect(run({ exec: { command: [] } }, web({}))).rejects.toSatisfy((e) => isStatusError(e, 'Invalid'));
    await expect(run({ tcpSocket: { port: 70000 } }, web({}))).rejects.toSatisfy((e) => isStatusError(e, 'Invalid'));
  });
});
