// The Deployment loop's "would writing this status change anything?" (statusEqual in
// controllers/deployment/deployment-status.ts): equal as the two statuses' JSON would be — a
// member whose value is undefined is absent, member order is free — compared in place, on plain
// objects and on the protobuf views the manager's caches hand out. Each case is checked against
// the rule it replaced (a JSON round trip of both, then a deep comparison).
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/api/index.js';
import { lazyProtobufFramer } from '../../../src/client/lazy/proto-decode.js';
import { protobufCodec, type JsonObject } from '../../../src/encoding/index.js';
import { statusEqual, type DeploymentStatus } from '../../../controllers/deployment/deployment-status.js';

const available = { type: 'Available', status: 'True', lastUpdateTime: '2026-11-28T09:00:00Z', lastTransitionTime: '2026-11-28T09:00:00Z', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' };
const progressing = { type: 'Progressing', status: 'True', lastUpdateTime: '2026-11-28T09:00:01Z', lastTransitionTime: '2026-11-28T09:00:00Z', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "web-1" has successfully progressed.' };
const base = (): DeploymentStatus => ({ observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 0, conditions: [available, progressing] });
const roundTrip = (a: DeploymentStatus | undefined, b: DeploymentStatus) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? {})), JSON.parse(JSON.stringify(b)));

const cases: [string, DeploymentStatus | undefined, DeploymentStatus, boolean][] = [
  ['identical', base(), base(), true],
  ['members in another order', base(), { conditions: [available, progressing], unavailableReplicas: 0, availableReplicas: 3, readyReplicas: 3, updatedReplicas: 3, replicas: 3, observedGeneration: 2 }, true],
  ['an undefined member against an absent one', base(), { ...base(), collisionCount: undefined }, true],
  ['undefined conditions against none', { replicas: 1 }, { replicas: 1, conditions: undefined }, true],
  ['a condition’s undefined member against an absent one', base(), { ...base(), conditions: [available, { ...progressing, observedGeneration: undefined }] } as DeploymentStatus, true],
  ['a condition’s message undefined against one', base(), { ...base(), conditions: [available, { ...progressing, message: undefined }] } as DeploymentStatus, false],
  ['no status against an empty one', undefined, {}, true],
  ['no status against counts', undefined, { replicas: 0 }, false],
  ['a count', base(), { ...base(), readyReplicas: 2 }, false],
  ['zero against absent', { replicas: 1 }, { replicas: 1, readyReplicas: 0 }, false],
  ['a member more', base(), { ...base(), collisionCount: 1 }, false],
  ['a member less', base(), (({ unavailableReplicas: _u, ...rest }) => rest)(base()), false],
  ['a condition’s time', base(), { ...base(), conditions: [available, { ...progressing, lastUpdateTime: '2026-11-28T09:00:02Z' }] }, false],
  ['conditions in another order', base(), { ...base(), conditions: [progressing, available] }, false],
  ['a condition less', base(), { ...base(), conditions: [available] }, false],
  ['a string against a number', { replicas: 1 }, { replicas: '1' as unknown as number }, false],
  ['an object against an array', { conditions: [] }, { conditions: {} as unknown as [] }, false],
];

describe('statusEqual', () => {
  it.each(cases)('%s: as a JSON round trip of both answers', (_what, a, b, equal) => {
    expect(roundTrip(a, b)).toBe(equal);
    expect(statusEqual(a, b)).toBe(equal);
    expect(statusEqual(b, a ?? {})).toBe(equal);
  });

  it('reads a cached Deployment’s status view as the plain object it decodes to', () => {
    // No zero counts: the wire leaves Go's zero values out, as JSON does.
    const status = (): DeploymentStatus => ({ ...base(), availableReplicas: 2, unavailableReplicas: 1 });
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'n', resourceVersion: '5' }, spec: { selector: { matchLabels: { app: 'web' } }, template: {} }, status: status() };
    const view = (lazyProtobufFramer().push(protobufCodec.frame!('MODIFIED', deployment as unknown as JsonObject)) as { object: Deployment }[])[0]!.object;
    expect(statusEqual(view.status, status())).toBe(true);
    expect(statusEqual(view.status, { ...status(), collisionCount: undefined })).toBe(true);
    expect(statusEqual(view.status, { ...status(), availableReplicas: 3 })).toBe(false);
    expect(statusEqual(view.status, { ...status(), conditions: [available] })).toBe(false);
  });
});
