import { randomInt } from 'node:crypto';
import { fieldForbidden, fieldInvalid, invalid, type FieldCause, type ResourceType } from '../../api/index.js';
import { isStorageError, type Store } from '../../storage/index.js';
import type { ApiObject } from '../api-object.js';
import type { ObjectReader } from '../object-reader.js';
import { bigIntToIp, canonicalIp, inClusterIpRange, type ClusterIpRange, type NodePortRange } from './service-ranges.js';

type Json = Record<string, unknown>;
type Family = 'IPv4' | 'IPv6';

/** What a reservation key holds: the Service it is for, and when it was made (the repair spares young ones). */
interface Reservation {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly at: number;
}

/** A Service made ready for storage, with what to do once it is stored or not. */
export interface PreparedService {
  readonly object: ApiObject;
  /** The write was stored: what the old version held and the new one does not is released. */
  commit(): Promise<void>;
  /** The write failed: what was reserved for it is released. */
  rollback(): Promise<void>;
}

export interface ServiceAllocatorOptions {
  readonly store: Store;
  readonly reader: ObjectReader;
  readonly serviceType: ResourceType;
  readonly clusterIpRanges: readonly ClusterIpRange[];
  readonly nodePortRange: NodePortRange;
}

/**
 * Cluster IPs and NodePorts of Services (kube-apiserver's allocators and their repair). Each
 * address or port in use is one key in the store, created by the write that takes it: two
 * Services can never hold one, whatever the backend, because creating a key that exists fails.
 * A Service's keys are released when it is deleted or stops using them; `repair` (at start, then
 * periodically) puts back the keys of stored Services and removes keys no Service holds (a crash
 * between the reservation and the Service's write).
 */
export class ServiceAllocator {
  readonly #options: ServiceAllocatorOptions;
  readonly #prefix: string;

  constructor(options: ServiceAllocatorOptions) {
    this.#options = options;
    this.#prefix = `${options.store.prefix}svc-allocations/`;
  }

  get clusterIpRanges(): readonly ClusterIpRange[] {
    return this.#options.clusterIpRanges;
  }

  get nodePortRange(): NodePortRange {
    return this.#options.nodePortRange;
  }

  /** Whether `type` is the Service type this allocator serves. */
  serves(type: ResourceType): boolean {
    return type === this.#options.serviceType;
  }

  /**
   * Fills and reserves what the Service needs (create: `current` undefined; update: the stored
   * version): cluster IPs for every family it asks for, NodePorts for a NodePort or LoadBalancer
   * Service. Values the request names are checked (in range, free); values it leaves out on an
   * update are kept from the stored version, as Kubernetes does. Throws a 422 Invalid.
   */
  async prepare(next: ApiObject, current: ApiObject | undefined, dryRun: boolean): Promise<PreparedService> {
    const name = next.metadata.name ?? next.metadata.generateName ?? '';
    const owner: Reservation = { namespace: next.metadata.namespace ?? '', name: next.metadata.name ?? '', uid: next.metadata.uid ?? current?.metadata.uid ?? '', at: Date.now() };
    const spec: Json = { ...((next['spec'] as Json | undefined) ?? {}) };
    const old = (current?.['spec'] as Json | undefined) ?? {};
    const causes: FieldCause[] = [];
    const heldIps = current ? clusterIpsOf(old) : [];
    const heldPorts = current ? nodePortsOf(old) : [];
    const wantIps: { family: Family; ip?: string }[] = [];
    const type = (spec['type'] as string | undefined) ?? 'ClusterIP';

    if (type === 'ExternalName') {
      delete spec['clusterIP'];
      delete spec['clusterIPs'];
      delete spec['ipFamilies'];
      delete spec['ipFamilyPolicy'];
    } else {
      this.#planClusterIps(spec, old, current !== undefined && (old['type'] as string | undefined) !== 'ExternalName', causes, wantIps);
    }
    const ports = ((spec['ports'] as Json[] | undefined) ?? []).map((port) => ({ ...port }));
    const wantPorts: { index: number; port?: number }[] = [];
    this.#planNodePorts(type, spec, ports, (old['ports'] as Json[] | undefined) ?? [], heldPorts, causes, wantPorts);
    if (ports.length > 0) spec['ports'] = ports;
    if (causes.length > 0) throw invalid('Service', name, causes);

    // Reserve: named values first (a clash is the caller's error), then free ones.
    const reserved: string[] = [];
    const rollback = async (): Promise<void> => {
      for (const key of reserved.splice(0)) await this.#release(key, owner.uid);
    };
    try {
      const ips: string[] = [];
      for (const want of wantIps) {
        if (want.ip !== undefined) {
          if (!heldIps.includes(want.ip) && !(await this.#reserve(this.#ipKey(want.ip), owner, dryRun, reserved))) {
            causes.push(fieldInvalid('spec.clusterIPs', [want.ip], `failed to allocate IP ${want.ip}: provided IP is already allocated`));
          }
          ips.push(want.ip);
        } else {
          const ip = await this.#allocateIp(want.family, owner, dryRun, reserved);
          if (ip === undefined) causes.push(fieldInvalid('spec.clusterIPs', [], `failed to allocate a ${want.family} address: range is full`));
          else ips.push(ip);
        }
      }
      for (const want of wantPorts) {
        if (want.port !== undefined) {
          const shared = wantPorts.some((other) => other !== want && other.port === want.port && other.index < want.index);
          if (!shared && !heldPorts.includes(want.port) && !(await this.#reserve(this.#portKey(want.port), owner, dryRun, reserved))) {
            causes.push(fieldInvalid(`spec.ports[${want.index}].nodePort`, want.port, 'provided port is already allocated'));
          }
        } else {
          const port = await this.#allocatePort(owner, dryRun, reserved);
          if (port === undefined) causes.push(fieldInvalid(`spec.ports[${want.index}].nodePort`, 0, 'failed to allocate a port: range is full'));
          else ports[want.index]!['nodePort'] = port;
        }
      }
      if (causes.length > 0) throw invalid('Service', name, causes);
      if (ips.length > 0) {
        spec['clusterIP'] = ips[0];
        spec['clusterIPs'] = ips;
      }
    } catch (error) {
      await rollback();
      throw error;
    }
    const object: ApiObject = { ...next, spec };
    const keep = new Set([...clusterIpsOf(spec).map((ip) => this.#ipKey(ip)), ...nodePortsOf(spec).map((port) => this.#portKey(port))]);
    const drop = [...heldIps.map((ip) => this.#ipKey(ip)), ...heldPorts.map((port) => this.#portKey(port))].filter((key) => !keep.has(key));
    return {
      object,
      commit: async () => {
        if (dryRun) return;
        for (const key of drop) await this.#release(key, owner.uid);
      },
      rollback,
    };
  }

  /** Releases everything a deleted Service held. */
  async released(service: ApiObject): Promise<void> {
    const spec = (service['spec'] as Json | undefined) ?? {};
    const uid = service.metadata.uid ?? '';
    for (const ip of clusterIpsOf(spec)) await this.#release(this.#ipKey(ip), uid);
    for (const port of nodePortsOf(spec)) await this.#release(this.#portKey(port), uid);
  }

  /**
   * Makes the keys agree with the stored Services: each Service's IPs and ports are reserved for
   * it (a key another Service holds is reported, as upstream's repair reports a double
   * allocation), and keys no Service holds are removed once older than `graceMs` (a write may
   * be between its reservation and its store write). Answers what it found.
   */
  async repair(graceMs = 0): Promise<{ restored: number; removed: number; conflicts: string[] }> {
    // The keys first, then the Services: a Service deleted in between has its keys removed (by its deletion or as
    // strays), never put back; one created in between finds its key there when it is put back (AlreadyExists).
    const { items: keys } = await this.#options.store.list(this.#prefix);
    const { items } = await this.#options.reader.list(this.#options.serviceType, undefined);
    const wanted = new Map<string, Reservation>();
    const conflicts: string[] = [];
    for (const service of items) {
      const spec = (service['spec'] as Json | undefined) ?? {};
      const owner: Reservation = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '', uid: service.metadata.uid ?? '', at: Date.now() };
      const keys = [...clusterIpsOf(spec).map((ip) => this.#ipKey(ip)), ...nodePortsOf(spec).map((port) => this.#portKey(port))];
      for (const key of keys) {
        const other = wanted.get(key);
        if (other && other.uid !== owner.uid) conflicts.push(`${key.slice(this.#prefix.length)} is held by ${other.namespace}/${other.name} and ${owner.namespace}/${owner.name}`);
        else wanted.set(key, owner);
      }
    }
    let restored = 0;
    let removed = 0;
    const present = new Map(keys.map((kv) => [kv.key, kv]));
    for (const [key, owner] of wanted) {
      const kv = present.get(key);
      if (kv === undefined) {
        try {
          await this.#options.store.create(key, encode(owner));
          restored++;
        } catch (error) {
          if (!isStorageError(error, 'AlreadyExists')) throw error;
        }
      } else if (decode(kv.value)?.uid !== owner.uid) {
        await this.#options.store.update(key, encode(owner), kv.modRevision);
        restored++;
      }
    }
    const now = Date.now();
    for (const [key, kv] of present) {
      if (wanted.has(key)) continue;
      const held = decode(kv.value);
      if (held && now - held.at < graceMs) continue;
      try {
        await this.#options.store.delete(key, kv.modRevision);
        removed++;
      } catch (error) {
        if (!isStorageError(error, 'NotFound') && !isStorageError(error, 'Conflict')) throw error;
      }
    }
    return { restored, removed, conflicts };
  }

  #planClusterIps(spec: Json, old: Json, keepOld: boolean, causes: FieldCause[], want: { family: Family; ip?: string }[]): void {
    const ranges = this.#options.clusterIpRanges;
    const primary = ranges[0]!;
    let requested = (spec['clusterIPs'] as string[] | undefined) ?? (spec['clusterIP'] ? [spec['clusterIP'] as string] : []);
    const oldIps = (old['clusterIPs'] as string[] | undefined) ?? (old['clusterIP'] ? [old['clusterIP'] as string] : []);
    if (keepOld && oldIps.length > 0) {
      if (requested.length === 0 || requested[0] === '') requested = oldIps;
      else if (requested[0] !== oldIps[0]) causes.push(fieldInvalid('spec.clusterIPs[0]', requested[0], 'may not change once set'));
    }
    if (requested[0] === 'None') {
      spec['clusterIP'] = 'None';
      spec['clusterIPs'] = ['None'];
      if (!Array.isArray(spec['ipFamilies']) || (spec['ipFamilies'] as unknown[]).length === 0) spec['ipFamilies'] = [primary.family];
      spec['ipFamilyPolicy'] ??= 'SingleStack';
      return;
    }
    const policy = (spec['ipFamilyPolicy'] as string | undefined) ?? 'SingleStack';
    let families = (spec['ipFamilies'] as Family[] | undefined) ?? [];
    if (families.length === 0) {
      const first = requested[0] ? canonicalIp(requested[0]) : undefined;
      const firstFamily: Family = first === undefined ? primary.family : first.includes(':') ? 'IPv6' : 'IPv4';
      families = [firstFamily];
      const other = ranges.find((range) => range.family !== firstFamily);
      if (policy !== 'SingleStack' && other) families.push(other.family);
    }
    if (policy === 'RequireDualStack' && families.length < 2) {
      if (ranges.length < 2) causes.push(fieldInvalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
      else families = [families[0]!, ranges.find((range) => range.family !== families[0])!.family];
    }
    if (policy === 'SingleStack' && families.length > 1) causes.push(fieldInvalid('spec.ipFamilies', families, 'when spec.ipFamilyPolicy is SingleStack, only one ipFamily is allowed'));
    families.forEach((family, i) => {
      const range = ranges.find((r) => r.family === family);
      if (!range) {
        causes.push(fieldInvalid(`spec.ipFamilies[${i}]`, family, `this cluster has no ${family} service range`));
        return;
      }
      const text = requested[i];
      if (text === undefined || text === '') {
        want.push({ family });
        return;
      }
      const ip = canonicalIp(text);
      if (ip === undefined) causes.push(fieldInvalid(`spec.clusterIPs[${i}]`, text, 'must be a valid IP address'));
      else if (!inClusterIpRange(range, ip)) causes.push(fieldInvalid(`spec.clusterIPs[${i}]`, text, `provided IP is not in the valid range. The range of valid IPs is ${range.cidr}`));
      else want.push({ family, ip });
    });
    spec['ipFamilies'] = families;
    spec['ipFamilyPolicy'] = policy;
  }

  #planNodePorts(type: string, spec: Json, ports: Json[], oldPorts: readonly Json[], held: readonly number[], causes: FieldCause[], want: { index: number; port?: number }[]): void {
    const range = this.#options.nodePortRange;
    const needs = type === 'NodePort' || type === 'LoadBalancer';
    const allocateMissing = type === 'NodePort' || spec['allocateLoadBalancerNodePorts'] !== false;
    ports.forEach((port, i) => {
      let nodePort = (port['nodePort'] as number | undefined) ?? 0;
      if (!needs) {
        // A type that has none: ports kept from the old type go silently, a new one is an error.
        if (nodePort !== 0 && !held.includes(nodePort)) causes.push(fieldForbidden(`spec.ports[${i}].nodePort`, `may not be used when \`type\` is '${type}'`));
        delete port['nodePort'];
        return;
      }
      if (nodePort === 0) {
        const before = oldPorts.find((o) => o['port'] === port['port'] && ((o['protocol'] as string | undefined) ?? 'TCP') === ((port['protocol'] as string | undefined) ?? 'TCP'));
        nodePort = (before?.['nodePort'] as number | undefined) ?? 0;
        if (nodePort !== 0) port['nodePort'] = nodePort;
      }
      if (nodePort === 0) {
        if (allocateMissing) want.push({ index: i });
        return;
      }
      if (nodePort < range.base || nodePort >= range.base + range.size) {
        causes.push(fieldInvalid(`spec.ports[${i}].nodePort`, nodePort, `provided port is not in the valid range. The range of valid ports is ${range.text}`));
        return;
      }
      want.push({ index: i, port: nodePort });
    });
  }

  async #allocateIp(family: Family, owner: Reservation, dryRun: boolean, reserved: string[]): Promise<string | undefined> {
    const range = this.#options.clusterIpRanges.find((r) => r.family === family)!;
    // Usable offsets 1 .. size-2 (IPv4) or 1 .. size-1; IPv6 ranges are capped at 2^20 addresses as upstream's bitmap is.
    const last = family === 'IPv4' ? range.size - 2n : range.size - 1n > 1n << 20n ? 1n << 20n : range.size - 1n;
    const count = Number(last);
    // Upstream keeps the low band for Services that name their IP (the `kubernetes` Service takes the first): dynamic ones come from above it first.
    const band = Math.min(Math.max(16, Math.floor(count / 16)), 256);
    const order = count > band ? [[band + 1, count], [1, band]] : [[1, count]];
    for (const [low, high] of order) {
      const span = high! - low! + 1;
      const start = randomInt(0, span);
      for (let i = 0; i < span; i++) {
        const offset = low! + ((start + i) % span);
        const ip = bigIntToIp(range.base + BigInt(offset), family);
        if (await this.#reserve(this.#ipKey(ip), owner, dryRun, reserved)) return ip;
      }
    }
    return undefined;
  }

  async #allocatePort(owner: Reservation, dryRun: boolean, reserved: string[]): Promise<number | undefined> {
    const { base, size } = this.#options.nodePortRange;
    const start = randomInt(0, size);
    for (let i = 0; i < size; i++) {
      const port = base + ((start + i) % size);
      if (await this.#reserve(this.#portKey(port), owner, dryRun, reserved)) return port;
    }
    return undefined;
  }

  /** Takes a key for `owner`; false when another Service holds it. A dry run only looks. */
  async #reserve(key: string, owner: Reservation, dryRun: boolean, reserved: string[]): Promise<boolean> {
    if (reserved.includes(key)) return false;
    if (dryRun) {
      const kv = await this.#options.store.get(key);
      return kv === undefined || (owner.uid !== '' && decode(kv.value)?.uid === owner.uid);
    }
    try {
      await this.#options.store.create(key, encode(owner));
      reserved.push(key);
      return true;
    } catch (error) {
      if (!isStorageError(error, 'AlreadyExists')) throw error;
      const kv = await this.#options.store.get(key);
      // Left by this very Service (a write that failed after its reservation): it is its own.
      return kv !== undefined && owner.uid !== '' && decode(kv.value)?.uid === owner.uid;
    }
  }

  async #release(key: string, uid: string): Promise<void> {
    const kv = await this.#options.store.get(key);
    if (kv === undefined) return;
    // Only the holder's own key: after a repair another Service may hold it.
    if (uid !== '' && decode(kv.value)?.uid !== uid) return;
    try {
      await this.#options.store.delete(key, kv.modRevision);
    } catch (error) {
      if (!isStorageError(error, 'NotFound') && !isStorageError(error, 'Conflict')) throw error;
    }
  }

  #ipKey(ip: string): string {
    return `${this.#prefix}clusterips/${ip}`;
  }

  #portKey(port: number): string {
    return `${this.#prefix}nodeports/${port}`;
  }
}

function clusterIpsOf(spec: Json): string[] {
  if (spec['type'] === 'ExternalName') return [];
  const ips = (spec['clusterIPs'] as string[] | undefined) ?? (spec['clusterIP'] ? [spec['clusterIP'] as string] : []);
  return ips.filter((ip) => ip !== '' && ip !== 'None').map((ip) => canonicalIp(ip) ?? ip);
}

function nodePortsOf(spec: Json): number[] {
  return [...new Set(((spec['ports'] as Json[] | undefined) ?? []).map((port) => (port['nodePort'] as number | undefined) ?? 0).filter((port) => port > 0))];
}

const encode = (reservation: Reservation): Uint8Array => new TextEncoder().encode(JSON.stringify(reservation));

function decode(bytes: Uint8Array): Reservation | undefined {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as Reservation;
  } catch {
    return undefined;
  }
}
