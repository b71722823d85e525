import { describe, expect, it } from 'vitest';
import { builtinTypes } from '../../src/api/index.js';
import { DEFAULT_TABLE, KINDS_WITH_COLUMNS, humanDuration, parseJsonPath, tableConvertorOf, valueAtPath, type JsonObject } from '../../src/encoding/index.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const created = (ago: number) => ({ name: 'x', creationTimestamp: new Date(NOW - ago * 1000).toISOString().replace('.000', '') });
const cells = (group: string, kind: string, object: JsonObject) => tableConvertorOf(group, kind, true).cells(object, NOW);
const names = (group: string, kind: string) => tableConvertorOf(group, kind, true).columns.filter((c) => c.priority === 0).map((c) => c.name);

describe('table columns per kind', () => {
  it('gives every built-in kind as many cells as columns, even for an empty object', () => {
    for (const type of builtinTypes) {
      const table = tableConvertorOf(type.group, type.kind, true);
      expect(table.cells({ metadata: { name: 'a' } }, NOW), type.kind).toHaveLength(table.columns.length);
    }
    expect(KINDS_WITH_COLUMNS.length).toBeGreaterThan(20);
  });

  it('uses Name and Created At for other types, and for custom types of a built-in kind name', () => {
    expect(tableConvertorOf('example.com', 'Widget', false)).toBe(DEFAULT_TABLE);
    expect(tableConvertorOf('', 'Pod', false)).toBe(DEFAULT_TABLE);
    expect(DEFAULT_TABLE.cells({ metadata: { name: 'w', creationTimestamp: '2026-01-01T00:00:00Z' } }, NOW)).toEqual(['w', '2026-01-01T00:00:00Z']);
  });

  it('prints pods as kubectl does: ready containers, the status reason, restarts, age', () => {
    expect(names('', 'Pod')).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    const pod = {
      metadata: created(330),
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    expect(cells('', 'Pod', pod).slice(0, 5)).toEqual(['x', '1/2', 'CrashLoopBackOff', '5', '5m30s']);
    expect(cells('', 'Pod', { ...pod, metadata: { ...pod.metadata, deletionTimestamp: '2026-11-23T11:59:00Z' } })[2]).toBe('Terminating');
    expect(cells('', 'Pod', { metadata: created(1), status: { containerStatuses: [{ state: { terminated: { exitCode: 137 } } }] } })[2]).toBe('ExitCode:137');
  });

  it('prints workloads, services, nodes and jobs', () => {
    expect(names('apps', 'Deployment')).toEqual(['Name', 'Ready', 'Up-to-date', 'Available', 'Age']);
    expect(cells('apps', 'Deployment', { metadata: created(7200), spec: { replicas: 3 }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } }).slice(0, 5)).toEqual(['x', '2/3', 3, 2, '120m']);
    expect(cells('', 'Service', { metadata: created(10), spec: { type: 'NodePort', clusterIP: '10.0.0.1', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] } }).slice(0, 5)).toEqual(['x', 'NodePort', '10.0.0.1', '<none>', '80:30080/TCP']);
    expect(cells('', 'Node', { metadata: { ...created(90000), labels: { 'node-role.kubernetes.io/control-plane': '' } }, spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.33.0' } } }).slice(0, 5)).toEqual(['x', 'Ready,SchedulingDisabled', 'control-plane', '25h', 'v1.33.0']);
    expect(cells('batch', 'Job', { metadata: created(60), spec: { completions: 2 }, status: { succeeded: 2, startTime: '2026-11-23T11:59:00Z', completionTime: '2026-11-23T11:59:30Z', conditions: [{ type: 'Complete', status: 'True' }] } }).slice(0, 5)).toEqual(['x', 'Complete', '2/2', '30s', '60s']);
    expect(cells('', 'ConfigMap', { metadata: created(5), data: { a: '1' }, binaryData: { b: 'AA==' } })[1]).toBe(2);
  });

  it('formats ages like kubectl', () => {
    expect([5, 119, 120, 600, 10799, 10800, 3600 * 7 + 60, 3600 * 30, 86400 * 3 + 3600 * 5, 86400 * 30, 86400 * 365 * 3 + 86400 * 4].map((s) => humanDuration(s * 1000))).toEqual([
      '5s', '119s', '2m', '10m', '179m', '3h', '7h1m', '30h', '3d5h', '30d', '3y4d',
    ]);
  });
});

describe('printer column JSON paths', () => {
  it('read own fields only: a path naming a prototype member of an object without that field is missing', () => {
    expect(valueAtPath({ spec: {} }, parseJsonPath('.spec.constructor')!)).toBeUndefined();
    expect(valueAtPath({ spec: {} }, parseJsonPath('.spec.toString')!)).toBeUndefined();
    expect(valueAtPath(JSON.parse('{"spec":{"__proto__":"p","constructor":"c"}}'), parseJsonPath(".spec['__proto__']")!)).toBe('p');
    expect(valueAtPath(JSON.parse('{"spec":{"constructor":"c"}}'), parseJsonPath('.spec.constructor')!)).toBe('c');
  });
});
