/**
 * ImageManager.ensureImage against a real containerd (no registry is reachable here, so every
 * real pull fails fast): each pull policy, Never with a missing image, invalid names, a failing
 * pull then its back-off on an injected clock, serialized and parallel pulls, and the events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreEvent, type Secret, type StatusError } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { BUSYBOX_IMAGE, CriClient, nodeAgentEvents, ImageManager, type ImageEventSink, PAUSE_IMAGE, importImageArchive, type CallOptions, type Input, type PullImageRequest, type PullImageResponse } from '../../../src/nodeagent/index.js';
import { startClientTestServer } from '../../client/support.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { EventLog, podWith, writeTinyImage, rejection } from './support.js';

let containerd: RunningContainerd;
const scratch = mkdtempSync(join(tmpdir(), 'svc-image-manager-'));
/** An image present on the node under a registry that does not exist. */
const PRESENT = 'registry.invalid/present/app:1.0';
const PRESENT_LATEST = 'registry.invalid/present/app:latest';
const MISSING = 'registry.invalid/missing/app:1.0';
let presentId: string;

beforeAll(async () => {
  containerd = await startContainerd();
  for (const ref of [PRESENT, PRESENT_LATEST]) {
    const image = writeTinyImage(scratch, ref);
    await importImageArchive({ address: containerd.address, archive: image.path, snapshotter: containerd.snapshotter });
    if (ref === PRESENT) presentId = image.configDigest;
  }
}, 120_000);

afterAll(async () => {
  await containerd?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function manager(events: ImageEventSink, extra: { now?: () => number; serialize?: boolean; cri?: CriClient; qps?: number; burst?: number; sleep?: (ms: number) => Promise<void> } = {}): ImageManager {
  return new ImageManager({
    cri: extra.cri ?? containerd.cri,
    serializeImagePulls: extra.serialize ?? true,
    registryQps: extra.qps ?? 0,
    registryBurst: extra.burst ?? 0,
    events,
    now: extra.now,
    sleep: extra.sleep,
  });
}

describe('pull policies', () => {
  it('IfNotPresent with the image present returns its id without pulling', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('ifnp', { image: PRESENT, imagePullPolicy: 'IfNotPresent' });
    const { imageRef } = await manager(events).ensureImage(pod, container, []);
    const status = await containerd.cri.imageStatus({ image: { image: PRESENT } });
    expect(imageRef).toBe(status.image?.id);
    expect(events.reasons()).toEqual(['Pulled']);
    expect(events.events[0]!.message).toBe(`Container image "${PRESENT}" already present on machine`);
    expect(events.events[0]!.object).toMatchObject({ kind: 'Pod', name: 'ifnp', namespace: 'default', uid: 'uid-ifnp', fieldPath: 'spec.containers{main}' });
  });

  it('a tagged image without a policy defaults to IfNotPresent', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('tagged', { image: PRESENT });
    expect((await manager(events).ensureImage(pod, container, [])).imageRef).toMatch(/^sha256:/);
    expect(events.reasons()).toEqual(['Pulled']);
  });

  it('IfNotPresent with the image missing pulls, and the failing pull is ErrImagePull', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('ifnp-missing', { image: MISSING, imagePullPolicy: 'IfNotPresent' });
    const error = await rejection(manager(events).ensureImage(pod, container, []));
    expect(error.reason).toBe('ErrImagePull');
    expect(error.message).toContain(`failed to pull image "${MISSING}"`);
    expect(events.reasons()).toEqual(['Pulling', 'Failed']);
  });

  it('Always pulls even when the image is present (and fails here, with no registry)', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('always', { image: PRESENT, imagePullPolicy: 'Always' });
    expect((await rejection(manager(events).ensureImage(pod, container, []))).reason).toBe('ErrImagePull');
    expect(events.reasons()).toEqual(['Pulling', 'Failed']);
  });

  it(':latest without a policy defaults to Always', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('latest', { image: PRESENT_LATEST });
    expect((await rejection(manager(events).ensureImage(pod, container, []))).reason).toBe('ErrImagePull');
    expect(events.reasons()).toEqual(['Pulling', 'Failed']);
  });

  it('Never with the image present uses it', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('never', { image: PRESENT, imagePullPolicy: 'Never' });
    expect((await manager(events).ensureImage(pod, container, [])).imageRef).toBe(presentId);
  });

  it('Never with the image missing is ErrImageNeverPull, without a pull', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('never-missing', { image: MISSING, imagePullPolicy: 'Never' });
    const error = await rejection(manager(events).ensureImage(pod, container, []));
    expect(error.reason).toBe('ErrImageNeverPull');
    expect(error.message).toBe(`Container image "${MISSING}" is not present with pull policy of Never`);
    expect(events.reasons()).toEqual(['ErrImageNeverPull']);
  });

  it('svc.local images are never pulled: :latest uses the imported image; a missing one is ErrImagePull naming svc image import', async () => {
    const events = new EventLog();
    const busybox = podWith('busybox', { image: BUSYBOX_IMAGE });
    const { imageRef } = await manager(events).ensureImage(busybox.pod, busybox.container, []);
    expect(imageRef).toBe(containerd.images.busybox.configDigest);
    const pause = podWith('pause', { image: PAUSE_IMAGE });
    expect((await manager(events).ensureImage(pause.pod, pause.container, [])).imageRef).toBe(containerd.images.pause.configDigest);
    const missing = podWith('local-missing', { image: 'svc.local/nothing:latest' });
    const error = await rejection(manager(events).ensureImage(missing.pod, missing.container, []));
    expect(error.reason).toBe('ErrImagePull');
    expect(error.message).toContain('svc image import');
  });

  it('an invalid name is InvalidImageName with an InspectFailed event', async () => {
    const events = new EventLog();
    const { pod, container } = podWith('invalid', { image: 'Not/A:valid:image' });
    const error = await rejection(manager(events).ensureImage(pod, container, []));
    expect(error.reason).toBe('InvalidImageName');
    expect(events.reasons()).toEqual(['InspectFailed']);
  });
});

describe('pull back-off', () => {
  it('ErrImagePull on the failing attempt, ImagePullBackOff while waiting (10 s, then 20 s), per pod', async () => {
    let now = 5_000_000;
    const events = new EventLog();
    const images = manager(events, { now: () => now });
    const { pod, container } = podWith('backoff', { image: MISSING });

    expect((await rejection(images.ensureImage(pod, container, []))).reason).toBe('ErrImagePull');
    const waiting = await rejection(images.ensureImage(pod, container, []));
    expect(waiting.reason).toBe('ImagePullBackOff');
    expect(waiting.message).toBe(`Back-off pulling image "${MISSING}"`);
    expect(waiting.details?.retryAfterSeconds).toBe(10);
    now += 9_999;
    expect((await rejection(images.ensureImage(pod, container, []))).reason).toBe('ImagePullBackOff');
    now += 1;
    expect((await rejection(images.ensureImage(pod, container, []))).reason).toBe('ErrImagePull');
    const doubled = await rejection(images.ensureImage(pod, container, []));
    expect(doubled.reason).toBe('ImagePullBackOff');
    expect(doubled.details?.retryAfterSeconds).toBe(20);
    expect(events.reasons()).toEqual(['Pulling', 'Failed', 'BackOff', 'BackOff', 'Pulling', 'Failed', 'BackOff']);

    // Another pod's pull of the same image has its own back-off.
    const other = podWith('backoff-other', { image: MISSING });
    expect((await rejection(images.ensureImage(other.pod, other.container, []))).reason).toBe('ErrImagePull');
    // A forgotten pod starts over.
    images.forgetPod('uid-backoff');
    expect((await rejection(images.ensureImage(pod, container, []))).reason).toBe('ErrImagePull');
  });
});

/** The real client, counting the PullImage calls in flight. */
class CountingCri extends CriClient {
  inFlight = 0;
  maxInFlight = 0;
  calls = 0;
  readonly requests: Input<PullImageRequest>[] = [];
  override async pullImage(request: Input<PullImageRequest>, options?: CallOptions): Promise<PullImageResponse> {
    this.calls++;
    this.requests.push(request);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await super.pullImage(request, options);
    } finally {
      this.inFlight--;
    }
  }
}

describe('serialized and parallel pulls', () => {
  const burst = async (serialize: boolean): Promise<CountingCri> => {
    const cri = new CountingCri({ endpoint: containerd.endpoint });
    try {
      const images = manager(new EventLog(), { serialize, cri });
      const pulls = Array.from({ length: 4 }, (_, i) => {
        const { pod, container } = podWith(`burst-${serialize}-${i}`, { image: `registry.invalid/burst/app${i}:1` });
        return images.ensureImage(pod, container, []).then(
          () => 'pulled',
          (error: StatusError) => error.reason,
        );
      });
      expect(await Promise.all(pulls)).toEqual(['ErrImagePull', 'ErrImagePull', 'ErrImagePull', 'ErrImagePull']);
      return cri;
    } finally {
      cri.close();
    }
  };

  it('--serialize-image-pulls: never two pulls at once', async () => {
    const cri = await burst(true);
    expect(cri.calls).toBe(4);
    expect(cri.maxInFlight).toBe(1);
  });

  it('parallel pulls overlap', async () => {
    const cri = await burst(false);
    expect(cri.calls).toBe(4);
    expect(cri.maxInFlight).toBeGreaterThan(1);
  });
});

describe('pull secrets', () => {
  it('each matching credential is tried in turn (most specific first), then ErrImagePull; other registries get an anonymous pull', async () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const secret: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'regcred', namespace: 'default' },
      type: 'kubernetes.io/dockerconfigjson',
      data: {
        '.dockerconfigjson': b64(
          JSON.stringify({ auths: { 'registry.invalid': { auth: b64('wide:pw1') }, 'registry.invalid/secured': { username: 'narrow', password: 'pw2' } } }),
        ),
      },
    };
    const cri = new CountingCri({ endpoint: containerd.endpoint });
    try {
      const images = manager(new EventLog(), { cri });
      const { pod, container } = podWith('secured', { image: 'registry.invalid/secured/app:1' });
      expect((await rejection(images.ensureImage(pod, container, [secret]))).reason).toBe('ErrImagePull');
      expect(cri.requests.map((r) => [r.image?.image, r.auth?.username, r.auth?.password, r.auth?.serverAddress])).toEqual([
        ['registry.invalid/secured/app:1', 'narrow', 'pw2', ''],
        ['registry.invalid/secured/app:1', 'wide', 'pw1', ''],
      ]);
      const other = podWith('elsewhere', { image: 'other.invalid/app:1' });
      expect((await rejection(images.ensureImage(other.pod, other.container, [secret]))).reason).toBe('ErrImagePull');
      expect(cri.requests[2]?.auth).toBeUndefined();
    } finally {
      cri.close();
    }
  });
});

describe('registry rate limit', () => {
  it('--registry-qps/--registry-burst: the burst passes at once, the next pull waits for its token', async () => {
    const waits: number[] = [];
    const now = 7_000_000;
    const images = manager(new EventLog(), { serialize: false, qps: 2, burst: 2, now: () => now, sleep: async (ms) => void waits.push(ms) });
    const pulls = Array.from({ length: 4 }, (_, i) => {
      const { pod, container } = podWith(`qps-${i}`, { image: `registry.invalid/qps/app${i}:1` });
      return images.ensureImage(pod, container, []).catch((error: StatusError) => error.reason);
    });
    expect(await Promise.all(pulls)).toEqual(['ErrImagePull', 'ErrImagePull', 'ErrImagePull', 'ErrImagePull']);
    expect(waits).toEqual([500, 1000]);
  });

  it('qps 0 is unlimited', async () => {
    const waits: number[] = [];
    const images = manager(new EventLog(), { serialize: false, qps: 0, burst: 0, now: () => 1, sleep: async (ms) => void waits.push(ms) });
    for (let i = 0; i < 3; i++) {
      const { pod, container } = podWith(`unlimited-${i}`, { image: `registry.invalid/unlimited/app${i}:1` });
      await images.ensureImage(pod, container, []).catch(() => undefined);
    }
    expect(waits).toEqual([]);
  });
});

describe('events through the agent\'s EventRecorder', () => {
  it('Pulling and Failed reach the API server about the pod and its container', async () => {
    const t = await startClientTestServer();
    const recorder = nodeAgentEvents({ client: t.client, qps: 0, burst: 0, host: 'image-node' });
    try {
      const { pod, container } = podWith('evented', { image: MISSING, imagePullPolicy: 'Always' });
      expect((await rejection(manager(recorder).ensureImage(pod, container, []))).reason).toBe('ErrImagePull');
      let events: readonly CoreEvent[] = [];
      for (let i = 0; i < 200 && events.length < 2; i++) {
        events = (await t.client.list(builtin.coreEvents, { namespace: 'default' })).items;
        if (events.length < 2) await new Promise((r) => setTimeout(r, 25));
      }
      expect(events.map((e) => [e.reason, e.type]).sort()).toEqual([
        ['Failed', 'Warning'],
        ['Pulling', 'Normal'],
      ]);
      expect(events.every((e) => e.involvedObject.name === 'evented' && e.involvedObject.fieldPath === 'spec.containers{main}')).toBe(true);
    } finally {
      recorder.stop();
      await t.close();
    }
  });
});
