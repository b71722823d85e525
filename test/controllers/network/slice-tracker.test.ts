// The SliceTracker's answer to each slice event the endpointslice loops see (issue #24): its own
// write is no news, and neither is a late event of an earlier version — its own earlier write, or
// a version its later write replaced; a newer version or a deletion is someone else's change.
import { describe, expect, it } from 'vitest';
import type { EndpointSlice } from '../../../src/api/index.js';
import { SliceTracker } from '../../../controllers/index.js';

const slice = (rv: number, uid = 'u1', name = 's1'): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, namespace: 'ns', uid, resourceVersion: String(rv), ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc', controller: true }] },
  addressType: 'IPv4',
  endpoints: [],
});

describe('SliceTracker.observed', () => {
  it('takes late events of its own earlier writes as no news, however many writes ahead the loop is', () => {
    const tracker = new SliceTracker();
    tracker.wrote(slice(100));
    tracker.wrote(slice(110));
    tracker.wrote(slice(120));
    // The three writes' events arrive after the third write: none asks for a sync.
    expect(tracker.observed('updated', slice(100))).toBe(true);
    expect(tracker.observed('updated', slice(110))).toBe(true);
    expect(tracker.observed('updated', slice(120))).toBe(true);
    // Settled: the next version is someone else's.
    expect(tracker.observed('updated', slice(130))).toBe(false);
  });

  it('keeps its newest write current while late events arrive', () => {
    const tracker = new SliceTracker();
    tracker.wrote(slice(120));
    expect(tracker.observed('updated', slice(100))).toBe(true);
    // The informer shows version 100; the loop still starts from the version it wrote.
    expect(tracker.current([slice(100)], 'svc').map((s) => s.metadata.resourceVersion)).toEqual(['120']);
  });

  it('takes a newer version, a deletion or another slice of the same name as a change', () => {
    const tracker = new SliceTracker();
    tracker.wrote(slice(100));
    expect(tracker.observed('updated', slice(105))).toBe(false);
    tracker.wrote(slice(110));
    expect(tracker.observed('deleted', slice(110))).toBe(false);
    tracker.wrote(slice(120));
    expect(tracker.observed('added', slice(90, 'u2'))).toBe(false);
    // A slice the loop never wrote: a change.
    expect(tracker.observed('updated', slice(5, 'u3', 'other'))).toBe(false);
  });
});
