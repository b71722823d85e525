/** A granted lease: etcd's id for it and when (ms, by the clock given) it runs out. */
interface Granted {
  readonly id: string;
  readonly ttlSeconds: number;
  readonly expiresAt: number;
  attached: number;
}

export interface EtcdLeasesOptions {
  /** Asks etcd for a lease of `ttlSeconds`; resolves with its id. */
  grant(ttlSeconds: number): Promise<string>;
  /** Default Date.now. */
  now?: () => number;
  /** Most keys given one lease (default 1,000: a lease's revocation deletes them all in one raft entry). */
  maxAttached?: number;
}

/**
 * The etcd leases keys with a time to live are written under. One lease per write would be one
 * more etcd request per write and one lease object in etcd per key (600,000 Events at 150,000
 * pods), so, as kube-apiserver does for its Events, writes share a lease: a lease asked for
 * `ttl` is granted for `ttl + reuse` seconds (reuse = 5 % of ttl, at most 60 s), and a later write
 * with the same ttl takes it while it still has between `ttl` and `ttl + reuse` to live. A key
 * thus lives from its ttl up to its ttl plus the reuse margin after its last write. Writes that
 * ask while a grant is in flight wait for it instead of granting their own.
 */
export class EtcdLeases {
  private readonly now: () => number;
  private readonly maxAttached: number;
  private current: Granted | undefined;
  private granting: Promise<Granted> | undefined;

  constructor(private readonly options: EtcdLeasesOptions) {
    this.now = options.now ?? Date.now;
    this.maxAttached = options.maxAttached ?? 1000;
  }

  /** The id of a lease that keeps a key written now for at least `ttlSeconds`. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    for (;;) {
      const lease = this.current;
      if (lease && this.reusable(lease, ttlSeconds)) {
        lease.attached++;
        return lease.id;
      }
      if (this.granting) {
        await this.granting.catch(() => undefined);
        // Granted for another ttl, or taken up meanwhile: look again (at worst this grants).
        if (this.current && this.reusable(this.current, ttlSeconds)) continue;
      }
      const granting = (this.granting ??= this.grant(ttlSeconds).finally(() => (this.granting = undefined)));
      const granted = await granting;
      if (granted.ttlSeconds === ttlSeconds) {
        granted.attached++;
        return granted.id;
      }
    }
  }

  /** Forgets a lease etcd no longer has (a write under it failed): the next write grants anew. */
  forget(id: string): void {
    if (this.current?.id === id) this.current = undefined;
  }

  private reusable(lease: Granted, ttlSeconds: number): boolean {
    const now = this.now();
    const left = lease.expiresAt - now;
    return lease.ttlSeconds === ttlSeconds && left > ttlSeconds * 1000 && left <= (ttlSeconds + reuseSeconds(ttlSeconds)) * 1000 && lease.attached < this.maxAttached;
  }

  private async grant(ttlSeconds: number): Promise<Granted> {
    const asked = ttlSeconds + reuseSeconds(ttlSeconds);
    const start = this.now();
    const id = await this.options.grant(asked);
    // Counted from before the request: etcd's clock started no earlier, so the lease lasts at least this.
    const granted: Granted = { id, ttlSeconds, expiresAt: start + asked * 1000, attached: 0 };
    this.current = granted;
    return granted;
  }
}

/** How much longer than asked a shared lease is granted for: 5 % of the ttl, at most a minute. */
export function reuseSeconds(ttlSeconds: number): number {
  return Math.min(60, Math.floor(ttlSeconds * 0.05));
}
