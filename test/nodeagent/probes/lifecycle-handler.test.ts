/**
 * runLifecycleHandler's httpGet, sleep and tcpSocket handlers against real local servers, and
 * how each failure is reported (exec handlers run in a real container: containerd-exec.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../../src/api/index.js';
import { CriClient, containerLifecycle, runLifecycleHandler, type LifecycleHandler, type LifecycleHandlerOptions, type ProbeTarget } from '../../../src/nodeagent/index.js';
import { closedPort, podWith, startHttpServer, targetOf, type TestHttpServer } from './support.js';

const cri = new CriClient({ endpoint: '/nonexistent/cri.sock' });
const target = targetOf(podWith({ ports: [{ name: 'admin', containerPort: 1 }] }));
let server: TestHttpServer;

beforeAll(async () => {
  server = await startHttpServer();
  server.handle = (req, res) => {
    if (req.url === '/fail') res.statusCode = 500;
    if (req.url === '/hang') return;
    res.end();
  };
});
afterAll(async () => {
  await server.close();
  cri.close();
});

const run = (handler: LifecycleHandler, options: Partial<LifecycleHandlerOptions> = {}) => runLifecycleHandler(handler, target, { cri, timeoutSeconds: 5, ...options });

describe('httpGet', () => {
  it('GETs the path on the pod IP with the probe headers', async () => {
    await run({ httpGet: { port: server.port, path: '/shutdown', httpHeaders: [{ name: 'X-Reason', value: 'stop' }] } }, { hook: 'preStop' });
    expect(server.requests.at(-1)).toMatchObject({ url: '/shutdown', headers: { 'x-reason': 'stop', 'user-agent': 'kube-probe/1.32' } });
  });

  it('a status outside 200–399 is FailedPreStopHook / FailedPostStartHook with the status', async () => {
    await expect(run({ httpGet: { port: server.port, path: '/fail' } }, { hook: 'preStop' })).rejects.toSatisfy(
      (e) => isStatusError(e, 'FailedPreStopHook') && (e as Error).message === 'PreStopHook httpGet /fail for container "main" in pod "default/web" failed: HTTP probe failed with statuscode: 500',
    );
    await expect(run({ httpGet: { port: server.port, path: '/fail' } }, { hook: 'postStart' })).rejects.toSatisfy((e) => isStatusError(e, 'FailedPostStartHook') && /^PostStartHook httpGet \/fail/.test((e as Error).message));
  });

  it('an unreachable server fails with the connection error', async () => {
    const port = await closedPort();
    await expect(run({ httpGet: { port } }, { hook: 'postStart' })).rejects.toSatisfy((e) => isStatusError(e, 'FailedPostStartHook') && /ECONNREFUSED/.test((e as Error).message));
  });

  it('a server that never answers fails at the timeout', async () => {
    await expect(run({ httpGet: { port: server.port, path: '/hang' } }, { hook: 'preStop', timeoutSeconds: 1 })).rejects.toSatisfy(
      (e) => isStatusError(e, 'FailedPreStopHook') && /failed: timed out after 1s$/.test((e as Error).message),
    );
  });

  it('a port name the container lacks fails the hook', async () => {
    await expect(run({ httpGet: { port: 'metrics' } }, { hook: 'postStart' })).rejects.toSatisfy((e) => isStatusError(e, 'FailedPostStartHook') && /no port named "metrics"/.test((e as Error).message));
  });
});

describe('sleep', () => {
  it('waits, then resolves', async () => {
    let done = false;
    const sleeping = run({ sleep: { seconds: 1 } }).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    await sleeping;
    expect(done).toBe(true);
  });

  it('ends without failing when the signal fires or the timeout comes first', async () => {
    const abort = new AbortController();
    const sleeping = run({ sleep: { seconds: 3600 } }, { signal: abort.signal });
    abort.abort();
    await expect(sleeping).resolves.toBeUndefined();
    await expect(run({ sleep: { seconds: 3600 } }, { timeoutSeconds: 1 })).resolves.toBeUndefined();
  });
});

describe('tcpSocket and malformed handlers', () => {
  it('tcpSocket is deprecated in hooks: it does nothing and warns', async () => {
    const warnings: string[] = [];
    await run({ tcpSocket: { port: await closedPort() } }, { warn: (m) => warnings.push(m) });
    expect(warnings).toEqual(['container "main" in pod "default/web": a tcpSocket lifecycle handler is deprecated and does nothing']);
  });

  it('a handler with no action, or a malformed one, fails with the hook reason', async () => {
    await expect(run({}, { hook: 'postStart' })).rejects.toSatisfy((e) => isStatusError(e, 'FailedPostStartHook') && /names no action/.test((e as Error).message));
    await expect(run({ sleep: { seconds: -1 } } as LifecycleHandler, { hook: 'preStop' })).rejects.toSatisfy((e) => isStatusError(e, 'FailedPreStopHook') && /invalid handler/.test((e as Error).message));
  });

  it('without `hook` a failure is an InternalError still naming the container', async () => {
    await expect(run({ httpGet: { port: server.port, path: '/fail' } })).rejects.toSatisfy((e) => isStatusError(e, 'InternalError') && /^Lifecycle hook httpGet \/fail for container "main"/.test((e as Error).message));
  });

  it('takes the loose handler object a Pod holds, as the pod workers pass it', async () => {
    const runner: (handler: Readonly<Record<string, unknown>>, target: ProbeTarget, options: { cri: CriClient; timeoutSeconds: number; signal?: AbortSignal }) => Promise<void> = runLifecycleHandler;
    const loose: Readonly<Record<string, unknown>> = { httpGet: { port: server.port, path: '/loose' } };
    await runner(loose, target, { cri, timeoutSeconds: 5 });
    expect(server.requests.at(-1)?.url).toBe('/loose');
  });

  it("containerLifecycle parses a container's hooks, refusing a malformed one with a 422", () => {
    const container = { name: 'c', image: 'i', lifecycle: { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 5 } } } };
    expect(containerLifecycle(container)).toEqual(container.lifecycle);
    expect(containerLifecycle({ name: 'c', image: 'i' })).toEqual({});
    expect(() => containerLifecycle({ name: 'c', image: 'i', lifecycle: { preStop: { httpGet: { path: '/' } } } })).toThrow(expect.objectContaining({ reason: 'Invalid' }));
  });
});
