// The pod status writer's fingerprint of a status (src/nodeagent/pods/status-writer.ts): what it
// compares to decide whether a write is needed, and what it keeps per running pod until the pod
// goes. The same fingerprint for the same owned fields, whatever else the status holds or the
// order its keys come in; another for any change of an owned field; and a digest, not the
// status's JSON, whatever the status's size.
import { describe, expect, it } from 'vitest';
import type { PodStatus } from '../../../src/api/index.js';
import { statusFingerprint } from '../../../src/nodeagent/index.js';

const container = (name: string) => ({ name, image: `registry.example/${name}:1`, imageID: 'sha256:' + 'a'.repeat(64), containerID: `svc-simulated://${'b'.repeat(64)}`, restartCount: 0, ready: true, started: true, state: { running: { startedAt: '2026-11-28T09:00:00Z' } }, lastState: {} });
const status = (containers = 1): PodStatus => ({
  phase: 'Running',
  conditions: [
    { type: 'Initialized', status: 'True', lastTransitionTime: '2026-11-28T09:00:00Z' },
    { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-28T09:00:01Z' },
    { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-28T09:00:01Z' },
    { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-28T09:00:00Z' },
  ],
  hostIP: '10.250.0.1',
  hostIPs: [{ ip: '10.250.0.1' }],
  podIP: '10.88.0.2',
  podIPs: [{ ip: '10.88.0.2' }],
  startTime: '2026-11-28T09:00:00Z',
  qosClass: 'Burstable',
  containerStatuses: Array.from({ length: containers }, (_, i) => container(`c${i}`)),
}) as PodStatus;

describe("the status writer's fingerprint", () => {
  it('is the same for the same owned fields, in any key order, beside fields and conditions others own', () => {
    const reordered = Object.fromEntries(Object.entries(status()).reverse()) as PodStatus;
    const withOthers = { ...status(), nominatedNodeName: 'elsewhere', conditions: [...status().conditions!, { type: 'example.com/gate', status: 'False' }] } as PodStatus;
    expect(statusFingerprint(reordered)).toBe(statusFingerprint(status()));
    expect(statusFingerprint(withOthers)).toBe(statusFingerprint(status()));
  });

  it('differs when an owned field does', () => {
    const notReady = { ...status(), conditions: status().conditions!.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } as PodStatus;
    const moved = { ...status(), podIP: '10.88.0.3' } as PodStatus;
    const fingerprints = new Set([status(), notReady, moved, status(2), { ...status(), phase: 'Succeeded' } as PodStatus, undefined].map(statusFingerprint));
    expect(fingerprints.size).toBe(6);
  });

  it('is a digest of 44 characters, whatever the size of the status it stands for', () => {
    expect(JSON.stringify(status()).length).toBeGreaterThan(800);
    for (const size of [1, 2, 20]) expect(statusFingerprint(status(size))).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
