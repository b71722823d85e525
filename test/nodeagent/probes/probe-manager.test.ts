/**
 * ProbeManager on virtual time (a stepped VirtualTimeScheduler: timers move only when the test
 * says) with real httpGet probes against a local server, so every timing field is checked by the
 * attempts the server sees at each instant, never by a wall clock.
 */
import http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Container, CoreEvent, Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { CriClient, nodeAgentEvents, ProbeManager, type Probe, type ProbeAttempt, type ProbeResult } from '../../../src/nodeagent/index.js';
import { startClientTestServer } from '../../client/support.js';
import { eventually, podWith, startHttpServer, SteppedClock, targetOf, type TestHttpServer } from './support.js';

type Answer = number | 'hang';
let server: TestHttpServer;
let answers: Record<string, Answer>;
let clock: SteppedClock;
let manager: ProbeManager;
let results: ProbeResult[];
let attempts: ProbeAttempt[];
const cri = new CriClient({ endpoint: '/nonexistent/cri.sock' });

beforeEach(async () => {
  server = await startHttpServer();
  answers = {};
  server.handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const answer = answers[req.url ?? '/'] ?? 200;
    if (answer === 'hang') return;
    res.statusCode = answer;
    res.end(`answer ${answer}`);
  };
  clock = new SteppedClock();
  manager = new ProbeManager({ cri, scheduler: clock });
  results = [];
  attempts = [];
  manager.results$.subscribe((r) => results.push(r));
  manager.attempts$.subscribe((a) => attempts.push(a));
});

afterEach(async () => {
  manager.close();
  await server.close();
});

const probe = (path: string, timing: Omit<Probe, 'httpGet'> = {}): Probe => ({ httpGet: { port: server.port, path }, ...timing });
const hits = (path: string) => server.requests.filter((r) => r.url === path).length;

/**
 * Moves virtual time to `ms`, then waits for the real I/O of the attempts that started: until
 * every attempt still running is one the server holds unanswered (`answers[path] = 'hang'`).
 */
async function at(ms: number, probes: ProbeManager = manager): Promise<void> {
  clock.advanceTo(ms);
  await eventually('attempts settled', () => probes.inFlight() === server.open());
}

describe('timing', () => {
  it('the first attempt is at once, then every periodSeconds (default 10)', async () => {
    manager.start(targetOf(podWith({ livenessProbe: probe('/live') })));
    await at(0);
    expect(hits('/live')).toBe(1);
    await at(9_999);
    expect(hits('/live')).toBe(1);
    await at(10_000);
    expect(hits('/live')).toBe(2);
    await at(20_000);
    await at(30_000);
    expect(hits('/live')).toBe(4);
  });

  it('initialDelaySeconds delays the first attempt; periodSeconds spaces the rest', async () => {
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { initialDelaySeconds: 5, periodSeconds: 2 }) })));
    await at(4_999);
    expect(hits('/live')).toBe(0);
    await at(5_000);
    expect(hits('/live')).toBe(1);
    await at(6_999);
    expect(hits('/live')).toBe(1);
    await at(7_000);
    expect(hits('/live')).toBe(2);
  });

  it("initialDelaySeconds counts from the container's start, not from start()", async () => {
    clock.advanceTo(100_000);
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { initialDelaySeconds: 5, periodSeconds: 10 }) }), 'c1', { startedAtMs: 97_000 }));
    await at(101_999);
    expect(hits('/live')).toBe(0);
    await at(102_000);
    expect(hits('/live')).toBe(1);
  });

  it('timeoutSeconds (default 1) cuts an attempt off as a failure', async () => {
    answers['/live'] = 'hang';
    answers['/slow'] = 'hang';
    manager.start(targetOf(podWith({ livenessProbe: probe('/live') }), 'c1'));
    manager.start(targetOf(podWith({ name: 'other', livenessProbe: probe('/slow', { timeoutSeconds: 3 }) }, { uid: 'uid-other' }), 'c2'));
    await at(999);
    expect(attempts).toEqual([]);
    await at(1_000);
    expect(attempts).toMatchObject([{ containerId: 'c1', result: 'failure', errored: true, message: 'probe timed out after 1s' }]);
    await at(2_999);
    expect(attempts).toHaveLength(1);
    await at(3_000);
    expect(attempts[1]).toMatchObject({ containerId: 'c2', result: 'failure', message: 'probe timed out after 3s' });
  });

  it('a 0 period or timeout takes the default (10 s, 1 s), as the API defaults it', async () => {
    answers['/live'] = 'hang';
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { periodSeconds: 0, timeoutSeconds: 0, failureThreshold: 0 }) })));
    await at(999);
    expect(attempts).toEqual([]);
    await at(1_000);
    expect(attempts).toMatchObject([{ result: 'failure', message: 'probe timed out after 1s' }]);
    await at(9_999);
    expect(hits('/live')).toBe(1);
    await at(10_000);
    expect(hits('/live')).toBe(2);
    await at(11_000);
    expect(results).toEqual([]); // failureThreshold 0 means 3
    await at(20_000);
    await at(21_000);
    expect(results).toMatchObject([{ kind: 'liveness', result: 'failure' }]);
  });

  it('a slow attempt is never overlapped: ticks while it runs are skipped', async () => {
    answers['/live'] = 'hang';
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { periodSeconds: 2, timeoutSeconds: 5, failureThreshold: 10 }) })));
    await at(0);
    await at(4_000);
    expect(hits('/live')).toBe(1);
    await at(5_000);
    expect(attempts).toHaveLength(1);
    await at(6_000);
    expect(hits('/live')).toBe(2);
  });
});

describe('thresholds and results', () => {
  it('liveness fails only after failureThreshold (default 3) failures in a row, then stops probing', async () => {
    answers['/live'] = 500;
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { periodSeconds: 1 }) })));
    await at(0);
    await at(1_000);
    expect(results).toEqual([]);
    await at(2_000);
    expect(results).toEqual([{ podUid: 'uid-web', containerName: 'main', containerId: 'c1', kind: 'liveness', result: 'failure', message: 'HTTP probe failed with statuscode: 500' }]);
    await at(10_000);
    expect(hits('/live')).toBe(3);
  });

  it('a success in between restarts the count of failures', async () => {
    answers['/live'] = 500;
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { periodSeconds: 1, failureThreshold: 2 }) })));
    await at(0);
    answers['/live'] = 200;
    await at(1_000);
    answers['/live'] = 500;
    await at(2_000);
    expect(results).toEqual([]);
    await at(3_000);
    expect(results).toMatchObject([{ kind: 'liveness', result: 'failure' }]);
  });

  it('a failing liveness result carries the probe’s terminationGracePeriodSeconds', async () => {
    answers['/live'] = 503;
    manager.start(targetOf(podWith({ livenessProbe: probe('/live', { failureThreshold: 1, terminationGracePeriodSeconds: 7 }) })));
    await at(0);
    expect(results).toMatchObject([{ kind: 'liveness', result: 'failure', terminationGracePeriodSeconds: 7 }]);
  });

  it('readiness is false until successThreshold successes in a row, and results$ emits changes only', async () => {
    answers['/ready'] = 500;
    manager.start(targetOf(podWith({ readinessProbe: probe('/ready', { periodSeconds: 1, successThreshold: 2, failureThreshold: 1 }) })));
    await at(0);
    await at(1_000);
    expect(manager.ready('uid-web', 'main')).toBe(false);
    expect(results).toEqual([]); // failing from the start is no change
    answers['/ready'] = 200;
    await at(2_000);
    expect(manager.ready('uid-web', 'main')).toBe(false);
    await at(3_000);
    expect(manager.ready('uid-web', 'main')).toBe(true);
    await at(4_000);
    await at(5_000);
    expect(results).toMatchObject([{ kind: 'readiness', result: 'success' }]);
    answers['/ready'] = 500;
    await at(6_000);
    expect(manager.ready('uid-web', 'main')).toBe(false);
    expect(results.map((r) => r.result)).toEqual(['success', 'failure']);
    await at(7_000);
    await at(8_000);
    expect(results).toHaveLength(2);
    expect(hits('/ready')).toBe(9); // readiness keeps probing while it fails
  });

  it('successThreshold counts as 1 for liveness and startup', async () => {
    manager.start(targetOf(podWith({ startupProbe: probe('/startup', { successThreshold: 3 }) })));
    await at(0);
    expect(manager.started('uid-web', 'main')).toBe(true);
  });
});

describe('startup gating', () => {
  it('liveness and readiness wait for the startup probe, which stops once passed', async () => {
    answers['/startup'] = 500;
    const container = { startupProbe: probe('/startup', { periodSeconds: 1, failureThreshold: 30 }), livenessProbe: probe('/live', { periodSeconds: 1 }), readinessProbe: probe('/ready', { periodSeconds: 1 }) };
    manager.start(targetOf(podWith(container)));
    await at(0);
    await at(1_000);
    await at(2_000);
    expect([hits('/startup'), hits('/live'), hits('/ready')]).toEqual([3, 0, 0]);
    expect(manager.started('uid-web', 'main')).toBe(false);
    expect(manager.ready('uid-web', 'main')).toBe(false);
    answers['/startup'] = 200;
    await at(3_000);
    expect(manager.started('uid-web', 'main')).toBe(true);
    expect(results).toMatchObject([{ kind: 'startup', result: 'success' }]);
    expect([hits('/live'), hits('/ready')]).toEqual([0, 0]);
    await at(3_000); // their first attempts are due at once, on the same clock
    expect([hits('/live'), hits('/ready')]).toEqual([1, 1]);
    expect(manager.ready('uid-web', 'main')).toBe(true);
    await at(4_000);
    await at(5_000);
    expect([hits('/startup'), hits('/live'), hits('/ready')]).toEqual([4, 3, 3]);
    expect(results.map((r) => `${r.kind}:${r.result}`)).toEqual(['startup:success', 'readiness:success']);
  });

  it("liveness' initialDelaySeconds after startup still counts from the container's start", async () => {
    answers['/startup'] = 500;
    manager.start(targetOf(podWith({ startupProbe: probe('/startup', { periodSeconds: 1 }), livenessProbe: probe('/live', { initialDelaySeconds: 4, periodSeconds: 10 }) })));
    await at(0);
    answers['/startup'] = 200;
    await at(1_000);
    expect(manager.started('uid-web', 'main')).toBe(true);
    await at(3_999);
    expect(hits('/live')).toBe(0);
    await at(4_000);
    expect(hits('/live')).toBe(1);
  });

  it('a startup probe that reaches failureThreshold fails the container and stops its probes', async () => {
    answers['/startup'] = 500;
    manager.start(targetOf(podWith({ startupProbe: probe('/startup', { periodSeconds: 1, failureThreshold: 2, terminationGracePeriodSeconds: 3 }), livenessProbe: probe('/live') })));
    await at(0);
    await at(1_000);
    expect(results).toMatchObject([{ kind: 'startup', result: 'failure', terminationGracePeriodSeconds: 3 }]);
    await at(20_000);
    expect([hits('/startup'), hits('/live')]).toEqual([2, 0]);
    expect(manager.started('uid-web', 'main')).toBe(false);
  });

  it('without probes a started container is started and ready; unknown containers are neither', async () => {
    manager.start(targetOf(podWith({})));
    expect(manager.started('uid-web', 'main')).toBe(true);
    expect(manager.ready('uid-web', 'main')).toBe(true);
    expect(manager.ready('uid-web', 'other')).toBe(false);
    expect(manager.started('uid-nope', 'main')).toBe(false);
  });

  it('without probes a container keeps nothing of the pod it started in', async () => {
    // The pod a container started in is an old version once its status is written: kept by the
    // manager for as long as the container runs, every running pod would be held twice.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const started = (uid: string, probes: Partial<Container>): WeakRef<Pod> => {
      const pod = podWith(probes, { uid });
      manager.start(targetOf(pod));
      return new WeakRef(pod);
    };
    const unprobed = started('uid-a', {});
    const probed = started('uid-b', { readinessProbe: probe('/ready') });
    // A WeakRef's target lives to the end of the job that made it.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(unprobed.deref()).toBeUndefined();
    expect([manager.started('uid-a', 'main'), manager.ready('uid-a', 'main')]).toEqual([true, true]);
    // A probe's loop needs its target (the kubelet's prober workers hold their pod too).
    expect(probed.deref()).toBeDefined();
    expect([manager.started('uid-b', 'main'), manager.ready('uid-b', 'main')]).toEqual([true, false]);
  });

  it('without a readiness probe, ready follows startup', async () => {
    answers['/startup'] = 500;
    manager.start(targetOf(podWith({ startupProbe: probe('/startup', { periodSeconds: 1 }) })));
    await at(0);
    expect(manager.ready('uid-web', 'main')).toBe(false);
    answers['/startup'] = 200;
    await at(1_000);
    expect(manager.ready('uid-web', 'main')).toBe(true);
  });
});

describe('start, stop, close', () => {
  it('start() again with the same container ID does nothing; a new ID starts afresh', async () => {
    const pod = podWith({ readinessProbe: probe('/ready') });
    manager.start(targetOf(pod, 'c1'));
    await at(0);
    expect(manager.ready('uid-web', 'main')).toBe(true);
    manager.start(targetOf(pod, 'c1'));
    await at(10_000);
    expect(hits('/ready')).toBe(2);
    manager.start(targetOf(pod, 'c2'));
    expect(manager.ready('uid-web', 'main')).toBe(false);
    await at(10_000);
    expect(manager.ready('uid-web', 'main')).toBe(true);
    await at(20_000);
    expect(hits('/ready')).toBe(4); // only c2's loop runs
    expect(results.map((r) => r.containerId)).toEqual(['c1', 'c2']);
  });

  it('stop() ends the probes of one container or of the whole pod', async () => {
    const pod = podWith({ readinessProbe: probe('/ready') });
    pod.spec.containers.push({ name: 'side', image: 'busybox', readinessProbe: probe('/side') });
    manager.start(targetOf(pod, 'c1'));
    manager.start({ ...targetOf(pod, 'c2'), container: pod.spec.containers[1]! });
    await at(0);
    manager.stop('uid-web', 'side');
    expect(manager.ready('uid-web', 'side')).toBe(false);
    await at(10_000);
    expect([hits('/ready'), hits('/side')]).toEqual([2, 1]);
    manager.stop('uid-web');
    await at(30_000);
    expect(hits('/ready')).toBe(2);
    expect(manager.ready('uid-web', 'main')).toBe(false);
  });

  it('close() stops everything and completes results$', async () => {
    let completed = false;
    manager.results$.subscribe({ complete: () => (completed = true) });
    manager.start(targetOf(podWith({ livenessProbe: probe('/live') })));
    manager.close();
    manager.start(targetOf(podWith({ livenessProbe: probe('/live') }), 'c2'));
    await at(60_000);
    expect(hits('/live')).toBe(0);
    expect(completed).toBe(true);
  });

  it('a probe that cannot run counts as a failure', async () => {
    manager.start(targetOf(podWith({ livenessProbe: { httpGet: { port: 'nope' }, failureThreshold: 1 } })));
    await at(0);
    await eventually('attempt', () => attempts.length === 1);
    expect(attempts[0]).toMatchObject({ result: 'failure', errored: true, message: 'container "main" has no port named "nope"' });
    expect(results).toMatchObject([{ kind: 'liveness', result: 'failure' }]);
  });
});

describe('Unhealthy events', () => {
  it('every failed attempt is a Warning Unhealthy event on the pod, naming the probe and why', async () => {
    const api = await startClientTestServer();
    const events = nodeAgentEvents({ client: api.client, qps: 0, burst: 0, host: 'node-1' });
    const withEvents = new ProbeManager({ cri, scheduler: clock, events });
    try {
      answers['/live'] = 500;
      answers['/ready'] = 'hang';
      withEvents.start(targetOf(podWith({ livenessProbe: probe('/live', { periodSeconds: 1 }), readinessProbe: probe('/ready', { periodSeconds: 5 }) })));
      await at(0, withEvents);
      await at(1_000, withEvents);
      // The two equal liveness failures are one Event counted twice (the recorder correlates repeats).
      const listed = async () => ((await api.client.list(builtin.coreEvents, { namespace: 'default' })).items as CoreEvent[]);
      let list: CoreEvent[] = [];
      for (let i = 0; i < 400 && list.reduce((n, e) => n + (e.count ?? 0), 0) < 3; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 25));
        list = await listed();
      }
      const seen = list.map((e) => [e.type, e.reason, e.message, e.count, e.involvedObject.kind, e.involvedObject.name, e.involvedObject.uid, e.involvedObject.fieldPath]).sort();
      expect(seen).toEqual(
        [
          ['Warning', 'Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 500', 2, 'Pod', 'web', 'uid-web', 'spec.containers{main}'],
          ['Warning', 'Unhealthy', 'Readiness probe errored: probe timed out after 1s', 1, 'Pod', 'web', 'uid-web', 'spec.containers{main}'],
        ].sort(),
      );
    } finally {
      withEvents.close();
      events.stop();
      await api.close();
    }
  });
});
