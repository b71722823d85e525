import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_SOURCE_ANNOTATION, headerList, podSources, SourcesReadiness, type PodUpdate } from '../../../src/nodeagent/index.js';
import { podYaml, Recorder, until } from './support.js';

let server: Server | undefined;
let recorder: Recorder<PodUpdate> | undefined;
afterEach(async () => {
  recorder?.stop();
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A manifest server whose answer a test changes; records each request's raw headers. */
async function manifestServer() {
  const state = { body: '', status: 200, requests: [] as IncomingMessage['rawHeaders'][], paths: [] as (string | undefined)[], openConnections: 0 };
  server = createServer((req, res) => {
    state.requests.push(req.rawHeaders);
    state.paths.push(req.url);
    res.statusCode = state.status;
    res.end(state.body);
  });
  // Keep-alive as long as a client likes (undici follows the server's hint): only the client closes.
  server.keepAliveTimeout = 600_000;
  server.on('connection', (socket) => {
    state.openConnections += 1;
    socket.on('close', () => (state.openConnections -= 1));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods.yaml` };
}

describe('the URL source', () => {
  it('sends --manifest-url-header headers, same-name ones as separate lines in the order given', async () => {
    const { state, url } = await manifestServer();
    state.body = podYaml('web');
    recorder = new Recorder<PodUpdate>();
    recorder.start(podSources({ nodeName: 'n1', manifestUrl: `${url}?node=n1&x=%20`, manifestUrlHeaders: ['X-A:hello', 'X-B:again', 'X-A:world', 'X-Empty:'], httpCheckFrequencyMs: 50, onProblem: recorder.onProblem }));
    await until(() => recorder!.values.length === 1, 'the ADD');
    const raw = state.requests[0]!;
    const pairs: [string, string][] = [];
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase().startsWith('x-')) pairs.push([raw[i]!, raw[i + 1]!]);
    expect(pairs).toEqual([
      ['X-A', 'hello'],
      ['X-B', 'again'],
      ['X-A', 'world'],
      ['X-Empty', ''],
    ]);
    expect(recorder.values[0]!.pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION]).toBe('http');
    expect(recorder.values[0]!.pod.metadata.name).toBe('web-n1');
    expect(state.paths[0]).toBe('/pods.yaml?node=n1&x=%20');
  });

  it('closes its keep-alive connection when the source is unsubscribed', async () => {
    const { state, url } = await manifestServer();
    state.body = podYaml('web');
    recorder = new Recorder<PodUpdate>();
    recorder.start(podSources({ nodeName: 'n1', manifestUrl: url, httpCheckFrequencyMs: 60_000, onProblem: recorder.onProblem }));
    await until(() => recorder!.values.length === 1, 'the ADD');
    expect(state.openConnections).toBe(1);
    recorder.stop();
    await until(() => state.openConnections === 0, 'the connection closed by the agent', 10_000);
  });

  it('refuses a header item without a colon', () => {
    expect(() => headerList(['NoColon'])).toThrow(/Name:value/);
  });

  it('follows the served set, keeps the last good set while the URL fails, and is seen only after a success', async () => {
    const { state, url } = await manifestServer();
    state.status = 503;
    const readiness = new SourcesReadiness(['http']);
    recorder = new Recorder<PodUpdate>();
    recorder.start(podSources({ nodeName: 'n1', manifestUrl: url, httpCheckFrequencyMs: 50, readiness, onProblem: recorder.onProblem }));
    await until(() => state.requests.length >= 3, 'three failed fetches');
    expect(readiness.allReady()).toBe(false);
    expect(recorder.problems).toHaveLength(1); // one report per run of the same failure
    expect(recorder.problems[0]!.error.code).toBe(503);

    state.status = 200;
    state.body = `${podYaml('a')}---\n${podYaml('b')}`;
    await until(() => recorder!.values.length === 2, 'two ADDs');
    expect(readiness.allReady()).toBe(true);
    const uids = recorder.values.map((u) => u.pod.metadata.uid);

    // The server goes away: nothing is removed.
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    await until(() => recorder!.problems.length === 2, 'the unreachable URL reported');
    expect(recorder.problems[1]!.origin).toBe(url);
    expect(recorder.values).toHaveLength(2);
  });

  it('removes pods that leave the served set and keeps UIDs of unchanged ones', async () => {
    const { state, url } = await manifestServer();
    state.body = `${podYaml('a')}---\n${podYaml('b')}`;
    recorder = new Recorder<PodUpdate>();
    recorder.start(podSources({ nodeName: 'n1', manifestUrl: url, httpCheckFrequencyMs: 50, onProblem: recorder.onProblem }));
    await until(() => recorder!.values.length === 2, 'two ADDs');
    const uidA = recorder.values.find((u) => u.pod.metadata.name === 'a-n1')!.pod.metadata.uid;
    state.body = podYaml('a');
    await until(() => recorder!.values.length === 3, 'the REMOVE of b');
    expect(recorder.values[2]).toMatchObject({ type: 'REMOVE', source: 'http', pod: { metadata: { name: 'b-n1' } } });
    state.body = `${podYaml('a')}---\nkind: Pod\n`;
    await until(() => recorder!.problems.length === 1, 'the invalid document reported');
    expect(recorder.values).toHaveLength(3);
    expect(recorder.values[0]!.pod.metadata.uid === uidA || recorder.values[1]!.pod.metadata.uid === uidA).toBe(true);
    state.body = '';
    await until(() => recorder!.values.length === 4, 'an empty body removes a');
    expect(recorder.values[3]).toMatchObject({ type: 'REMOVE', pod: { metadata: { uid: uidA } } });
  });
});
