// The status rules of the workload kinds on a write through /status, against a real API server:
// each rule broken is a 422 Invalid naming the field (and nothing is written), its boundary is
// accepted. Upstream's ValidateDeploymentStatusUpdate, ValidateReplicaSetStatusUpdate,
// ValidateReplicationControllerStatusUpdate, ValidateStatefulSetStatusUpdate,
// ValidateDaemonSetStatusUpdate and ValidateJobUpdateStatus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallResult, type TestServer } from '../harness.js';
import { REQUIRED } from './fixtures.js';

type Status = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

/** A rule broken: `after` (written over `before`, which is accepted) is refused with a cause at `field`. */
interface Refused {
  readonly rule: string;
  readonly spec?: Record<string, unknown>;
  readonly before?: Status;
  readonly after: Status;
  readonly field: string;
  readonly message: string;
  readonly reason?: string;
}

/** A boundary: `after` written over `before` is taken as it is. */
interface Accepted {
  readonly rule: string;
  readonly spec?: Record<string, unknown>;
  readonly before?: Status;
  readonly after: Status;
}

interface Kind {
  readonly kind: string;
  readonly path: string;
  readonly refused: readonly Refused[];
  readonly accepted: readonly Accepted[];
}

const MORE = 'cannot be greater than status.replicas';
const NEGATIVE = 'must be greater than or equal to 0';

/** The rules Deployments, ReplicaSets and StatefulSets share: subsets of the pods no more than all of them. */
const withinReplicas = (fields: readonly string[]): Refused[] =>
  fields.map((field) => ({ rule: `${field} above replicas`, after: { replicas: 2, readyReplicas: 2, availableReplicas: 2, [field]: 3 }, field: `status.${field}`, message: `Invalid value: 3: ${MORE}` }));

const collisionCountRules = (): Refused[] => [
  { rule: 'a negative collisionCount', after: { collisionCount: -1 }, field: 'status.collisionCount', message: `Invalid value: -1: ${NEGATIVE}` },
  { rule: 'collisionCount lowered', before: { collisionCount: 2 }, after: { collisionCount: 1 }, field: 'status.collisionCount', message: 'Invalid value: 1: cannot be decremented' },
  { rule: 'collisionCount dropped', before: { collisionCount: 2 }, after: {}, field: 'status.collisionCount', message: 'Invalid value: 0: cannot be decremented' },
];

/** Counts that are never negative (the kinds' schemas check these, before the rules). */
const negatives = (fields: readonly string[]): Refused[] =>
  fields.map((field) => ({ rule: `a negative ${field}`, after: { [field]: -1 }, field: `status.${field}`, message: `Invalid value: -1: ${NEGATIVE}` }));

const observedGeneration = (): Refused => ({ rule: 'a negative observedGeneration', after: { observedGeneration: -1 }, field: 'status.observedGeneration', message: `Invalid value: -1: ${NEGATIVE}` });

const KINDS: readonly Kind[] = [
  {
    kind: 'Deployment',
    path: '/apis/apps/v1/namespaces/default/deployments',
    refused: [
      ...negatives(['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'terminatingReplicas']),
      ...withinReplicas(['updatedReplicas', 'readyReplicas', 'availableReplicas']),
      { rule: 'more available than ready', after: { replicas: 3, readyReplicas: 1, availableReplicas: 2 }, field: 'status.availableReplicas', message: 'Invalid value: 2: cannot be greater than readyReplicas' },
      observedGeneration(),
      ...collisionCountRules(),
    ],
    accepted: [
      { rule: 'every count at replicas', after: { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 0, observedGeneration: 0, collisionCount: 0 } },
      { rule: 'collisionCount raised', before: { collisionCount: 1 }, after: { collisionCount: 2 } },
    ],
  },
  {
    kind: 'ReplicaSet',
    path: '/apis/apps/v1/namespaces/default/replicasets',
    refused: [
      ...negatives(['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'terminatingReplicas']),
      ...withinReplicas(['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
      { rule: 'more available than ready', after: { replicas: 3, readyReplicas: 1, availableReplicas: 2 }, field: 'status.availableReplicas', message: 'Invalid value: 2: cannot be greater than readyReplicas' },
      observedGeneration(),
    ],
    accepted: [{ rule: 'every count at replicas', after: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 0 } }],
  },
  {
    kind: 'ReplicationController',
    path: '/api/v1/namespaces/default/replicationcontrollers',
    refused: [
      ...negatives(['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
      ...withinReplicas(['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
      { rule: 'more available than ready', after: { replicas: 3, readyReplicas: 1, availableReplicas: 2 }, field: 'status.availableReplicas', message: 'Invalid value: 2: cannot be greater than readyReplicas' },
      observedGeneration(),
    ],
    accepted: [{ rule: 'every count at replicas', after: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 0 } }],
  },
  {
    kind: 'StatefulSet',
    path: '/apis/apps/v1/namespaces/default/statefulsets',
    refused: [
      ...negatives(['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']),
      ...withinReplicas(['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']),
      { rule: 'more available than ready', after: { replicas: 3, readyReplicas: 1, availableReplicas: 2 }, field: 'status.availableReplicas', message: 'Invalid value: 2: cannot be greater than status.readyReplicas' },
      observedGeneration(),
      ...collisionCountRules(),
    ],
    accepted: [
      { rule: 'every count at replicas', after: { replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2, observedGeneration: 0, collisionCount: 0 } },
      { rule: 'collisionCount kept', before: { collisionCount: 1 }, after: { replicas: 1, collisionCount: 1 } },
    ],
  },
  {
    kind: 'DaemonSet',
    path: '/apis/apps/v1/namespaces/default/daemonsets',
    refused: [
      ...negatives(['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']),
      observedGeneration(),
      ...collisionCountRules(),
    ],
    accepted: [
      // Its counts are over different sets of nodes: none is bounded by another.
      { rule: 'counts not bounded by each other', after: { desiredNumberScheduled: 1, currentNumberScheduled: 2, numberReady: 3, numberAvailable: 4, updatedNumberScheduled: 5, numberMisscheduled: 6, observedGeneration: 0 } },
      { rule: 'collisionCount raised', before: { collisionCount: 1 }, after: { collisionCount: 3 } },
    ],
  },
];

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const T2 = '2026-01-01T00:02:00Z';
const on = (...types: string[]) => ({ conditions: types.map((type) => ({ type, status: 'True', lastTransitionTime: T0 })) });
const indexed = (extra: Record<string, unknown> = {}) => ({ completionMode: 'Indexed', completions: 3, parallelism: 1, ...extra });
const perIndex = indexed({ backoffLimitPerIndex: 1 });
const failed = { startTime: T0, ...on('FailureTarget', 'Failed') };
const complete = { startTime: T0, completionTime: T1, ...on('SuccessCriteriaMet', 'Complete') };

const JOB: Kind = {
  kind: 'Job',
  path: '/apis/batch/v1/namespaces/default/jobs',
  refused: [
    // The status as written.
    ...negatives(['active', 'succeeded', 'failed', 'ready', 'terminating']),
    { rule: 'an empty uncounted uid', after: { uncountedTerminatedPods: { succeeded: [''] } }, field: 'status.uncountedTerminatedPods.succeeded[0]', message: 'Invalid value: "": must not be empty' },
    { rule: 'an uncounted pod twice', after: { uncountedTerminatedPods: { succeeded: ['a'], failed: ['a'] } }, field: 'status.uncountedTerminatedPods.failed[0]', message: 'Duplicate value: "a"', reason: 'FieldValueDuplicate' },
    { rule: 'Complete and Failed', after: { ...complete, ...on('SuccessCriteriaMet', 'Complete', 'Failed') }, field: 'status.conditions', message: 'Invalid value: cannot set Complete=True and Failed=true conditions' },
    { rule: 'Complete and FailureTarget', after: { ...complete, ...on('Complete', 'FailureTarget') }, field: 'status.conditions', message: 'Invalid value: cannot set Complete=True and FailureTarget=true conditions' },
    { rule: 'a completionTime without Complete', after: { startTime: T0, completionTime: T1 }, field: 'status.completionTime', message: 'cannot set completionTime when there is no Complete=True condition' },
    { rule: 'Complete without a completionTime', after: { startTime: T0, ...on('Complete') }, field: 'status.completionTime', message: 'Required value: completionTime is required for Complete jobs', reason: 'FieldValueRequired' },
    { rule: 'completionTime before startTime', after: { ...complete, startTime: T2 }, field: 'status.completionTime', message: `Invalid value: "${T1}": completionTime cannot be set before startTime` },
    { rule: 'a finished Job with active pods', after: { ...failed, active: 1 }, field: 'status.active', message: 'Invalid value: 1: active>0 is invalid for finished job' },
    { rule: 'a finished Job without startTime', after: on('FailureTarget', 'Failed'), field: 'status.startTime', message: 'Required value: startTime is required for finished job', reason: 'FieldValueRequired' },
    { rule: 'a finished Job with uncounted pods', after: { ...failed, uncountedTerminatedPods: { failed: ['a'] } }, field: 'status.uncountedTerminatedPods', message: 'uncountedTerminatedPods needs to be empty for finished job' },
    { rule: 'completedIndexes beyond completions', spec: indexed(), after: { completedIndexes: '0,5' }, field: 'status.completedIndexes', message: 'error parsing completedIndexes' },
    { rule: 'completedIndexes of a NonIndexed Job', after: { completedIndexes: '0' }, field: 'status.completedIndexes', message: 'cannot set non-empty completedIndexes when non-indexed completion mode' },
    { rule: 'failedIndexes without backoffLimitPerIndex', spec: indexed(), after: { failedIndexes: '1' }, field: 'status.failedIndexes', message: 'cannot set non-null failedIndexes when backoffLimitPerIndex is null' },
    { rule: 'failedIndexes malformed', spec: perIndex, after: { failedIndexes: '2-1' }, field: 'status.failedIndexes', message: 'error parsing failedIndexes' },
    { rule: 'an index both completed and failed', spec: perIndex, after: { completedIndexes: '0-1', failedIndexes: '1' }, field: 'status.failedIndexes', message: 'failedIndexes and completedIndexes overlap at index: 1' },
    { rule: 'SuccessCriteriaMet and Failed', after: { ...failed, ...on('SuccessCriteriaMet', 'Failed') }, field: 'status.conditions', message: 'cannot set SuccessCriteriaMet=True and Failed=true conditions' },
    { rule: 'SuccessCriteriaMet and FailureTarget', after: on('SuccessCriteriaMet', 'FailureTarget'), field: 'status.conditions', message: 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions' },
    {
      rule: 'Complete under a successPolicy without SuccessCriteriaMet',
      spec: indexed({ successPolicy: { rules: [{ succeededIndexes: '0' }] } }),
      after: { ...complete, ...on('Complete') },
      field: 'status.conditions',
      message: 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True',
    },
    // The move from the stored status.
    { rule: 'Failed turned off', before: failed, after: { ...failed, ...on('FailureTarget') }, field: 'status.conditions', message: 'cannot disable the terminal Failed=True condition' },
    { rule: 'Complete turned off', before: complete, after: { startTime: T0, ...on('SuccessCriteriaMet') }, field: 'status.conditions', message: 'cannot disable the terminal Complete=True condition' },
    { rule: 'FailureTarget turned off', before: on('FailureTarget'), after: {}, field: 'status.conditions', message: 'cannot disable the terminal FailureTarget=True condition' },
    { rule: 'failed lowered', before: { failed: 2 }, after: { failed: 1 }, field: 'status.failed', message: 'Invalid value: 1: cannot decrease the failed counter' },
    { rule: 'succeeded lowered', before: { succeeded: 2 }, after: { succeeded: 1 }, field: 'status.succeeded', message: 'Invalid value: 1: cannot decrease the succeeded counter' },
    { rule: 'succeeded lowered (Indexed, completions apart from parallelism)', spec: indexed(), before: { succeeded: 2 }, after: { succeeded: 0 }, field: 'status.succeeded', message: 'cannot decrease the succeeded counter' },
    { rule: 'completionTime changed', before: complete, after: { ...complete, completionTime: T2 }, field: 'status.completionTime', message: 'completionTime cannot be mutated' },
    { rule: 'startTime moved while running', before: { startTime: T0 }, after: { startTime: T1 }, field: 'status.startTime', message: 'Required value: startTime cannot be removed for unsuspended job', reason: 'FieldValueRequired' },
    { rule: 'startTime removed while running', before: { startTime: T0 }, after: {}, field: 'status.startTime', message: 'startTime cannot be removed for unsuspended job', reason: 'FieldValueRequired' },
    { rule: 'SuccessCriteriaMet turned off', before: on('SuccessCriteriaMet'), after: {}, field: 'status.conditions', message: 'cannot disable the SuccessCriteriaMet=True condition' },
    { rule: 'SuccessCriteriaMet after Complete', before: { ...complete, ...on('Complete') }, after: complete, field: 'status.conditions', message: 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions' },
  ],
  accepted: [
    { rule: 'uncounted pods, each once', after: { uncountedTerminatedPods: { succeeded: ['a'], failed: ['b'] } } },
    { rule: 'a Complete Job: startTime, completionTime at it, SuccessCriteriaMet first', after: { ...complete, completionTime: T0 } },
    { rule: 'a Failed Job after its FailureTarget, nothing left', before: { startTime: T0, active: 1, ...on('FailureTarget') }, after: { ...failed, active: 0, failed: 1 } },
    { rule: 'completed and failed indexes apart, below completions', spec: perIndex, after: { completedIndexes: '0,2', failedIndexes: '1' } },
    { rule: 'counters raised', before: { succeeded: 1, failed: 1 }, after: { succeeded: 2, failed: 1 } },
    { rule: 'succeeded lowered when an elastic Indexed Job shrinks', spec: indexed({ parallelism: 3 }), before: { succeeded: 2 }, after: { succeeded: 1 } },
    { rule: 'startTime cleared while suspended', spec: { suspend: true }, before: { startTime: T0 }, after: {} },
    { rule: 'startTime set on a Job that had none', before: { active: 1 }, after: { startTime: T1, active: 1 } },
  ],
};

const causesOf = (res: CallResult): Cause[] => (res.body?.details?.causes ?? []) as Cause[];

describe('the status rules of the workload kinds, through /status', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });

  let count = 0;
  const apiVersionOf = (path: string) => (path.startsWith('/api/v1') ? 'v1' : path.split('/').slice(2, 4).join('/'));

  /** A new object of the kind (`spec` merged over what it needs), and its URL. */
  async function create(kind: Kind, spec: Record<string, unknown> = {}): Promise<string> {
    const name = `${kind.kind.toLowerCase()}-${++count}`;
    const required = REQUIRED[kind.kind]!;
    const body = { apiVersion: apiVersionOf(kind.path), kind: kind.kind, metadata: { name }, ...required, spec: { ...(required['spec'] as object), ...spec } };
    const created = await s.call('POST', kind.path, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return `${kind.path}/${name}`;
  }

  /** PUT /status with the stored object and this status (the whole status: nothing merged). */
  async function putStatus(url: string, status: Status): Promise<CallResult> {
    const current = await s.call('GET', url);
    return s.call('PUT', `${url}/status`, { ...current.body, status });
  }

  async function written(url: string, status: Status): Promise<Record<string, any>> {
    const res = await putStatus(url, status);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toMatchObject(status);
    return res.body;
  }

  for (const kind of [...KINDS, JOB]) {
    describe(kind.kind, () => {
      it.each(kind.refused.map((c) => [c.rule, c] as const))('refuses %s, naming the field, and writes nothing', async (_rule, c) => {
        const url = await create(kind, c.spec);
        const stored = await written(url, c.before ?? {});
        const res = await putStatus(url, c.after);
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, details: { kind: kind.kind, name: stored.metadata.name } });
        const cause = causesOf(res).find((x) => x.field === c.field && x.message.includes(c.message));
        expect(cause, JSON.stringify(causesOf(res))).toBeDefined();
        expect(cause!.reason).toBe(c.reason ?? 'FieldValueInvalid');
        expect(res.body.message).toContain(`${c.field}: `);
        const after = await s.call('GET', url);
        expect(after.body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
        expect(after.body.status).toEqual(stored.status);
      });

      it.each(kind.accepted.map((c) => [c.rule, c] as const))('takes %s', async (_rule, c) => {
        const url = await create(kind, c.spec);
        await written(url, c.before ?? {});
        const stored = await written(url, c.after);
        expect((await s.call('GET', url)).body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
      });
    });
  }

  it('refuses a broken status through every patch type and apply too, writing nothing', async () => {
    const url = await create(KINDS[0]!);
    const stored = await written(url, { replicas: 2, readyReplicas: 1 });
    const tries = [
      s.call('PATCH', `${url}/status`, { status: { readyReplicas: 3 } }, { headers: { 'content-type': 'application/merge-patch+json' } }),
      s.call('PATCH', `${url}/status`, { status: { readyReplicas: 3 } }, { headers: { 'content-type': 'application/strategic-merge-patch+json' } }),
      s.call('PATCH', `${url}/status`, [{ op: 'replace', path: '/status/readyReplicas', value: 3 }], { headers: { 'content-type': 'application/json-patch+json' } }),
      s.call(
        'PATCH',
        `${url}/status?fieldManager=applier&force=true`,
        JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: stored.metadata.name }, status: { replicas: 2, readyReplicas: 3 } }),
        { headers: { 'content-type': 'application/apply-patch+yaml' } },
      ),
    ];
    for (const res of await Promise.all(tries)) {
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(causesOf(res)).toEqual([{ reason: 'FieldValueInvalid', field: 'status.readyReplicas', message: 'Invalid value: 3: cannot be greater than status.replicas' }]);
      expect(res.body.message).toBe(`Deployment "${stored.metadata.name}" is invalid: status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas`);
    }
    expect((await s.call('GET', url)).body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  });

  it('leaves the status rules to /status: a stored status they refuse does not block a write to the object', async () => {
    const url = await create(KINDS[0]!);
    const name = url.split('/').pop()!;
    // Stored before the rules (behind the API server's back): more ready pods than pods.
    const key = `${s.store.prefix}apps/deployments/default/${name}`;
    const kv = (await s.store.get(key))!;
    const object = JSON.parse(new TextDecoder().decode(kv.value)) as Record<string, any>;
    object.status = { replicas: 1, readyReplicas: 5 };
    await s.store.update(key, new TextEncoder().encode(JSON.stringify(object)), kv.modRevision);
    for (let i = 0; i < 200 && (await s.call('GET', url)).body.status?.readyReplicas !== 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));

    const labelled = await s.call('PATCH', url, { metadata: { labels: { a: 'b' } } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(labelled.status, JSON.stringify(labelled.body)).toBe(200);
    expect(labelled.body.status).toEqual({ replicas: 1, readyReplicas: 5 });
    // Through /status the rules run on what is written: a status that keeps the fault is refused, one that mends it is taken.
    const kept = await s.call('PATCH', `${url}/status`, { status: { observedGeneration: 1 } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(kept.status).toBe(422);
    expect(causesOf(kept).map((c) => c.field)).toEqual(['status.readyReplicas']);
    await written(url, { replicas: 5, readyReplicas: 5 });
  });

  it('runs a Job rule only when the fields it reads change: a stored status the spec moved past stays writable', async () => {
    // An elastic Indexed Job scaled down below an index it completed: completedIndexes is now beyond completions.
    const url = await create(JOB, indexed({ parallelism: 3 }));
    await written(url, { completedIndexes: '0-2', succeeded: 3 });
    const scaled = await s.call('PATCH', url, { spec: { completions: 2, parallelism: 2 } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(scaled.status, JSON.stringify(scaled.body)).toBe(200);
    await written(url, { completedIndexes: '0-2', succeeded: 3, active: 1 });
    // A write that changes completedIndexes is checked against the spec of now.
    const moved = await putStatus(url, { completedIndexes: '1-2', succeeded: 3, active: 1 });
    expect(moved.status, JSON.stringify(moved.body)).toBe(422);
    expect(causesOf(moved).map((c) => c.field)).toEqual(['status.completedIndexes']);
    expect(causesOf(moved)[0]!.message).toContain('error parsing completedIndexes');
  });
});
