import { describe, expect, it } from 'vitest';
import { EtcdLeases, reuseSeconds } from '../../src/storage/etcd-leases.js';

/** A lease granter that counts its grants and answers when the test says. */
function granter() {
  const asked: number[] = [];
  const pending: (() => void)[] = [];
  let held = false;
  return {
    asked,
    hold: () => void (held = true),
    release() {
      held = false;
      for (const go of pending.splice(0)) go();
    },
    grant(ttlSeconds: number): Promise<string> {
      asked.push(ttlSeconds);
      const id = String(asked.length);
      if (!held) return Promise.resolve(id);
      return new Promise((resolve) => pending.push(() => resolve(id)));
    },
  };
}

describe('EtcdLeases', () => {
  it('grants a lease longer than asked by the reuse margin (5 %, at most a minute)', () => {
    expect(reuseSeconds(3600)).toBe(60);
    expect(reuseSeconds(600)).toBe(30);
    expect(reuseSeconds(2)).toBe(0);
  });

  it('shares one lease among writes while it still has between the ttl and the ttl plus the margin to live', async () => {
    let clock = 0;
    const etcd = granter();
    const leases = new EtcdLeases({ grant: (ttl) => etcd.grant(ttl), now: () => clock });
    const first = await leases.leaseFor(3600);
    expect(etcd.asked).toEqual([3660]);
    clock = 59_000;
    expect(await leases.leaseFor(3600)).toBe(first);
    // 60 s after the grant the lease has only the ttl left: a key written now would go early.
    clock = 60_000;
    const second = await leases.leaseFor(3600);
    expect(second).not.toBe(first);
    expect(etcd.asked).toEqual([3660, 3660]);
    // Another ttl never takes it.
    const other = await leases.leaseFor(600);
    expect(other).not.toBe(second);
    expect(etcd.asked).toEqual([3660, 3660, 630]);
  });

  it('gives a short ttl (no margin) a lease per write', async () => {
    const etcd = granter();
    const leases = new EtcdLeases({ grant: (ttl) => etcd.grant(ttl), now: () => 0 });
    expect(await leases.leaseFor(2)).not.toBe(await leases.leaseFor(2));
    expect(etcd.asked).toEqual([2, 2]);
  });

  it('makes writes that ask while a grant is in flight wait for it, not grant their own', async () => {
    const etcd = granter();
    const leases = new EtcdLeases({ grant: (ttl) => etcd.grant(ttl), now: () => 0 });
    etcd.hold();
    const all = Promise.all([leases.leaseFor(3600), leases.leaseFor(3600), leases.leaseFor(3600)]);
    etcd.release();
    expect(new Set(await all).size).toBe(1);
    expect(etcd.asked).toEqual([3660]);
  });

  it('gives at most `maxAttached` writes one lease', async () => {
    const etcd = granter();
    const leases = new EtcdLeases({ grant: (ttl) => etcd.grant(ttl), now: () => 0, maxAttached: 2 });
    const ids = [await leases.leaseFor(3600), await leases.leaseFor(3600), await leases.leaseFor(3600)];
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('grants anew after a write under the lease failed (etcd may have lost it)', async () => {
    const etcd = granter();
    const leases = new EtcdLeases({ grant: (ttl) => etcd.grant(ttl), now: () => 0 });
    const first = await leases.leaseFor(3600);
    leases.forget(first);
    expect(await leases.leaseFor(3600)).not.toBe(first);
  });
});
