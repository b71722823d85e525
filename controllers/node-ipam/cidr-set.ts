import { familyBits } from './ip-address.js';
import { contains, formatCidr, parseCidr, type Cidr } from './cidr.js';

/** Most node blocks one cluster CIDR is cut into, as upstream (a 16-bit difference between the masks). */
const MAX_BLOCK_BITS = 16;

/**
 * The node blocks of one cluster CIDR (upstream's cidrset): the range cut into blocks of the node
 * mask size, each free or taken. Allocation takes the next free block after the last one taken
 * (round robin, so a block just released is not handed out again at once).
 */
export class CidrSet {
  readonly #used: Uint8Array;
  readonly #count: number;
  readonly #shift: bigint;
  #next = 0;
  #free: number;

  constructor(
    readonly cluster: Cidr,
    readonly maskSize: number,
  ) {
    if (maskSize < cluster.prefix) throw new RangeError(`the node CIDR mask size /${maskSize} is larger than the cluster CIDR ${formatCidr(cluster)}`);
    if (maskSize > familyBits(cluster.family)) throw new RangeError(`the node CIDR mask size /${maskSize} is not an IPv${cluster.family} mask`);
    if (maskSize - cluster.prefix > MAX_BLOCK_BITS) {
      throw new RangeError(`the node CIDR mask size /${maskSize} cuts ${formatCidr(cluster)} into more than 2^${MAX_BLOCK_BITS} blocks: use a mask of at most /${cluster.prefix + MAX_BLOCK_BITS}`);
    }
    this.#count = 2 ** (maskSize - cluster.prefix);
    this.#used = new Uint8Array(this.#count);
    this.#free = this.#count;
    this.#shift = BigInt(familyBits(cluster.family) - maskSize);
  }

  get free(): number {
    return this.#free;
  }

  /** Takes the next free block; undefined when the range is full. */
  allocate(): string | undefined {
    if (this.#free === 0) return undefined;
    for (let i = 0; i < this.#count; i++) {
      const index = (this.#next + i) % this.#count;
      if (this.#used[index]) continue;
      this.#used[index] = 1;
      this.#free--;
      this.#next = (index + 1) % this.#count;
      return formatCidr({ family: this.cluster.family, base: this.cluster.base + (BigInt(index) << this.#shift), prefix: this.maskSize });
    }
    return undefined;
  }

  /** Marks a block taken (a node that has it already); false when it is not one of this set's blocks. */
  occupy(text: string): boolean {
    const index = this.#indexOf(text);
    if (index === undefined) return false;
    if (!this.#used[index]) {
      this.#used[index] = 1;
      this.#free--;
    }
    return true;
  }

  /** Frees a block; false when it is not one of this set's. */
  release(text: string): boolean {
    const index = this.#indexOf(text);
    if (index === undefined) return false;
    if (this.#used[index]) {
      this.#used[index] = 0;
      this.#free++;
    }
    return true;
  }

  /** Whether `text` is in this set's family (so the set should hold it). */
  holdsFamily(text: string): boolean {
    return parseCidr(text)?.family === this.cluster.family;
  }

  #indexOf(text: string): number | undefined {
    const cidr = parseCidr(text);
    if (!cidr || cidr.prefix !== this.maskSize || !contains(this.cluster, cidr)) return undefined;
    return Number((cidr.base - this.cluster.base) >> this.#shift);
  }
}
