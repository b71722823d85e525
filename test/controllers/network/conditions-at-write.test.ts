// The endpointslice loop's conditions at write time (issue #24): a planned endpoint takes its
// pod's conditions as the pod cache shows them when its slice's write is sent — the same pod,
// address, node, zone and hostname only, so no endpoint moves and hints stay — and anything else
// is left to the next sync, as planned.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/index.js';
import { conditionsAtWrite, desiredGroups, EndpointCache, ZONE_LABEL } from '../../../controllers/endpointslice/index.js';
import { httpPort, pod, service } from './network-fixtures.js';

const running = (name: string, ip: string, ready: boolean, nodeName = 'n1', uid = `uid-${name}`): Pod => {
  const base = pod(name, 'ns', { labels: { app: 'web' }, ports: { http: 8080 }, nodeName });
  return { ...base, metadata: { ...base.metadata, uid }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } };
};
const node = (name: string, zone: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [ZONE_LABEL]: zone } } });

describe('conditionsAtWrite', () => {
  it('takes the pod cache\'s conditions for the same pod, address, node and zone, and the plan\'s for anything else', () => {
    const cache = new EndpointCache();
    const nodes = new Map([['n1', node('n1', 'z1')], ['n2', node('n2', 'z2')], ['n3', node('n3', 'z1')]]);
    const nodeOf = (name: string) => nodes.get(name);
    const svc = service('web', 'ns', { selector: { app: 'web' }, ports: [httpPort()] });
    const planned = new Map(['a', 'b', 'c', 'd', 'e', 'f'].map((name, i) => [name, running(name, `10.0.0.${i + 1}`, true)]));
    const [group] = desiredGroups(svc, [...planned.values()], nodeOf, cache);
    const byName = new Map(group!.endpoints.map((e) => [e.targetRef!.name!, e]));

    // Since the plan: a flipped, b replaced (a new uid), c re-addressed, d moved to another node of its zone, f to another zone; e unchanged.
    const now = new Map<string, Pod>([
      ['a', running('a', '10.0.0.1', false)],
      ['b', running('b', '10.0.0.2', false, 'n1', 'uid-b2')],
      ['c', running('c', '10.0.0.33', false)],
      ['d', running('d', '10.0.0.4', false, 'n3')],
      ['e', planned.get('e')!],
      ['f', running('f', '10.0.0.6', false, 'n2')],
    ]);
    const current = conditionsAtWrite(svc, (name) => now.get(name), nodeOf, cache);
    const a = current(byName.get('a')!);
    expect(a).toMatchObject({ addresses: ['10.0.0.1'], conditions: { ready: false, serving: false, terminating: false }, nodeName: 'n1', zone: 'z1', targetRef: { name: 'a', uid: 'uid-a' } });
    for (const name of ['b', 'c', 'd', 'e', 'f']) expect(current(byName.get(name)!), name).toBe(byName.get(name));
    // Gone from the cache: as planned.
    now.delete('a');
    expect(current(byName.get('a')!)).toBe(byName.get('a'));
  });

  it('keeps a hinted endpoint\'s hints', () => {
    const cache = new EndpointCache();
    const nodeOf = (name: string) => (name === 'n1' ? node('n1', 'z1') : undefined);
    const svc = service('web', 'ns', { selector: { app: 'web' }, ports: [httpPort()], trafficDistribution: 'PreferClose' });
    const [group] = desiredGroups(svc, [running('a', '10.0.0.1', true)], nodeOf, cache);
    const hinted = group!.endpoints[0]!;
    expect(hinted.hints).toEqual({ forZones: [{ name: 'z1' }] });
    const current = conditionsAtWrite(svc, () => running('a', '10.0.0.1', false), nodeOf, cache);
    expect(current(hinted)).toMatchObject({ conditions: { ready: false }, hints: { forZones: [{ name: 'z1' }] }, zone: 'z1' });
  });
});
