// The slice planner's minimal-churn rules, on plain objects: unchanged slices are kept, a change
// rewrites only its slice, new endpoints fill slices being rewritten, then the fullest unchanged
// slice they all fit in, then new slices; a slice left empty is deleted; a lowered maximum moves
// the overflow on.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice } from '../../../src/api/index.js';
import { planSlices, type SliceEndpoint } from '../../../controllers/index.js';

const ep = (ip: string, ready = true): SliceEndpoint => ({ addresses: [ip], conditions: { ready } });
const slice = (name: string, ips: string[]): EndpointSlice => ({ apiVersion: 'discovery.svc.io/v1', kind: 'EndpointSlice', metadata: { name }, addressType: 'IPv4', endpoints: ips.map((ip) => ep(ip)) });
const names = (slices: readonly ({ readonly slice: EndpointSlice } | EndpointSlice)[]) => slices.map((s) => ('slice' in s ? (s.slice as EndpointSlice) : s).metadata.name);

describe('planSlices', () => {
  const a = slice('a', ['1', '2', '3']);
  const b = slice('b', ['4', '5']);
  const c = slice('c', ['6']);

  it('keeps every slice when nothing changed', () => {
    const plan = planSlices([a, b, c], ['1', '2', '3', '4', '5', '6'].map((ip) => ep(ip)), 3);
    expect(plan).toMatchObject({ create: [], update: [], delete: [] });
    expect(names(plan.keep)).toEqual(['a', 'b', 'c']);
  });

  it('rewrites only the slice of a changed endpoint, in place', () => {
    const plan = planSlices([a, b, c], [ep('1'), ep('2'), ep('3'), ep('4', false), ep('5'), ep('6')], 3);
    expect(names(plan.update)).toEqual(['b']);
    expect(plan.update[0]!.endpoints).toEqual([ep('4', false), ep('5')]);
    expect(names(plan.keep)).toEqual(['a', 'c']);
  });

  it('puts a new endpoint into a slice being rewritten anyway', () => {
    const plan = planSlices([a, b, c], [ep('1'), ep('2'), ep('3'), ep('4', false), ep('5'), ep('6'), ep('7')], 3);
    expect(names(plan.update)).toEqual(['b']);
    expect(plan.update[0]!.endpoints.map((e) => e.addresses[0])).toEqual(['4', '5', '7']);
    expect(plan.create).toEqual([]);
  });

  it('puts new endpoints into the fullest unchanged slice they all fit in, else into new slices', () => {
    const fit = planSlices([a, b, c], ['1', '2', '3', '4', '5', '6', '7'].map((ip) => ep(ip)), 3);
    expect(names(fit.update)).toEqual(['b']);
    const two = planSlices([a, b, c], ['1', '2', '3', '4', '5', '6', '7', '8'].map((ip) => ep(ip)), 3);
    expect(names(two.update)).toEqual(['c']);
    const many = planSlices([a, b, c], ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'].map((ip) => ep(ip)), 3);
    expect(many.update).toEqual([]);
    expect(many.create.map((s) => s.map((e) => e.addresses[0]))).toEqual([['7', '8', '9'], ['10', '11']]);
  });

  it('deletes a slice left empty, and moves what no longer fits a lowered maximum on', () => {
    const emptied = planSlices([a, b, c], ['1', '2', '3', '4', '5'].map((ip) => ep(ip)), 3);
    expect(names(emptied.delete)).toEqual(['c']);
    const lowered = planSlices([a], ['1', '2', '3'].map((ip) => ep(ip)), 2);
    expect(lowered.update[0]!.endpoints.map((e) => e.addresses[0])).toEqual(['1', '2']);
    expect(lowered.create).toEqual([[ep('3')]]);
  });
});
