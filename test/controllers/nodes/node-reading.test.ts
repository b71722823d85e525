import { describe, expect, it } from 'vitest';
import type { Lease, Node } from '../../../src/api/index.js';
import { NodeReadings } from '../../../controllers/node-lifecycle/node-reading.js';

// The node lifecycle's monitor pass looks at every node every 5 s; it reads each Node and Lease
// version once (their status and labels, the Lease's renewTime), not once a pass: at thousands of
// idle nodes decoding every Node's status every pass was most of the manager's CPU
// (docs/benchmarks.md). These count the reads of the objects' fields.

function countingNode(resourceVersion: string, ready: string, reads: { status: number }): Node {
  const status = { conditions: [{ type: 'Ready', status: ready, lastHeartbeatTime: '2026-11-27T20:00:00Z' }] };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', resourceVersion, creationTimestamp: '2026-11-27T19:00:00Z', labels: { 'topology.kubernetes.io/zone': 'z1' } },
    get status() {
      reads.status++;
      return status;
    },
  } as Node;
}

function countingLease(resourceVersion: string, renewTime: string, reads: { spec: number }): Lease {
  const spec = { renewTime };
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'n1', namespace: 'svc-node-lease', resourceVersion },
    get spec() {
      reads.spec++;
      return spec;
    },
  } as Lease;
}

describe('node readings', () => {
  it('reads a Node version once, and a new version afresh', () => {
    const readings = new NodeReadings();
    const reads = { status: 0 };
    const first = readings.node('n1', countingNode('10', 'True', reads));
    expect(first).toMatchObject({ name: 'n1', ready: 'True', heartbeat: '2026-11-27T20:00:00Z', zone: ':\x00:z1', settled: false });
    expect(first.created).toBe(Date.parse('2026-11-27T19:00:00Z'));
    first.settled = true;
    for (let pass = 0; pass < 5; pass++) expect(readings.node('n1', countingNode('10', 'True', reads))).toBe(first);
    expect(reads.status).toBe(1);

    const next = readings.node('n1', countingNode('11', 'False', reads));
    expect(reads.status).toBe(2);
    expect(next).toMatchObject({ ready: 'False', settled: false });
  });

  it("reads a Lease version's renewTime once, and a renewal's afresh", () => {
    const readings = new NodeReadings();
    const reads = { spec: 0 };
    for (let pass = 0; pass < 3; pass++) expect(readings.lease('n1', countingLease('20', '2026-11-27T20:00:00.000000Z', reads))).toBe('2026-11-27T20:00:00.000000Z');
    expect(reads.spec).toBe(1);
    expect(readings.lease('n1', countingLease('21', '2026-11-27T20:00:10.000000Z', reads))).toBe('2026-11-27T20:00:10.000000Z');
    expect(reads.spec).toBe(2);
  });

  it('forgets a node that is gone: its next version is read again', () => {
    const readings = new NodeReadings();
    const reads = { status: 0 };
    readings.node('n1', countingNode('10', 'True', reads));
    readings.forget('n1');
    expect([...readings.names()]).toEqual([]);
    readings.node('n1', countingNode('10', 'True', reads));
    expect(reads.status).toBe(2);
  });
});
