import { formatCidr, overlaps, parseCidr, type Cidr } from './cidr.js';
import { CidrSet } from './cidr-set.js';

/** The node-ipam options, as the controller manager's flags give them. */
export interface NodeIpamSettings {
  /** `--cidr-allocator-type`: only `RangeAllocator` (svc has no cloud provider to ask). */
  readonly allocatorType: string;
  /** `--cluster-cidr`: one CIDR, or an IPv4 and an IPv6 one comma-separated. */
  readonly clusterCidr: string;
  /** `--service-cluster-ip-range`: must not overlap the cluster CIDRs. */
  readonly serviceCidr?: string | undefined;
  /** `--node-cidr-mask-size` (single stack). */
  readonly maskSize?: number | undefined;
  readonly maskSizeIpv4?: number | undefined;
  readonly maskSizeIpv6?: number | undefined;
}

const list = (text: string | undefined) => (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');

/**
 * The CIDR sets node-ipam allocates from, one per family, or a RangeError saying which option is
 * wrong: an allocator other than RangeAllocator, a missing or invalid cluster CIDR, two of one
 * family, `--node-cidr-mask-size` with dual stack, a mask size that does not fit, or a cluster CIDR
 * that overlaps the service range. Checked when the manager starts, before anything is allocated.
 */
export function clusterCidrSets(settings: NodeIpamSettings): CidrSet[] {
  if (settings.allocatorType !== 'RangeAllocator') {
    throw new RangeError(`--cidr-allocator-type ${JSON.stringify(settings.allocatorType)} is not supported: svc has RangeAllocator only (there is no cloud provider to allocate from)`);
  }
  const texts = list(settings.clusterCidr);
  if (texts.length === 0) throw new RangeError('--allocate-node-cidrs requires --cluster-cidr');
  if (texts.length > 2) throw new RangeError(`--cluster-cidr ${JSON.stringify(settings.clusterCidr)}: at most two CIDRs (one IPv4, one IPv6)`);
  const cidrs: Cidr[] = texts.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new RangeError(`--cluster-cidr: ${JSON.stringify(text)} is not a CIDR`);
    return cidr;
  });
  const dual = cidrs.length === 2;
  if (dual && cidrs[0]!.family === cidrs[1]!.family) throw new RangeError(`--cluster-cidr ${JSON.stringify(settings.clusterCidr)}: a dual-stack pair needs one IPv4 and one IPv6 CIDR`);
  if (dual && settings.maskSize !== undefined) {
    throw new RangeError('--node-cidr-mask-size cannot be used with a dual-stack --cluster-cidr: use --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6');
  }
  for (const text of list(settings.serviceCidr)) {
    const service = parseCidr(text);
    const clash = service && cidrs.find((cidr) => overlaps(cidr, service));
    if (clash) throw new RangeError(`--cluster-cidr ${formatCidr(clash)} overlaps --service-cluster-ip-range ${formatCidr(service)}`);
  }
  return cidrs.map((cidr) => {
    const family = cidr.family === 4 ? { flag: '--node-cidr-mask-size-ipv4', size: settings.maskSizeIpv4, fallback: 24 } : { flag: '--node-cidr-mask-size-ipv6', size: settings.maskSizeIpv6, fallback: 64 };
    const size = (dual ? undefined : settings.maskSize) ?? family.size ?? family.fallback;
    const flag = !dual && settings.maskSize !== undefined ? '--node-cidr-mask-size' : family.flag;
    try {
      return new CidrSet(cidr, size);
    } catch (error) {
      throw new RangeError(`${flag}: ${(error as Error).message}`);
    }
  });
}
