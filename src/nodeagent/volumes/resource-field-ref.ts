import { quantityValue, type Container, type Pod } from '../../api/index.js';
import type { ResourceFieldSelector } from './sources.js';

const RESOURCES = ['cpu', 'memory', 'ephemeral-storage'] as const;

// Quantities are decimals; a float like 0.1 × 1000 = 100.00000000000001 must not round up to 101.
function ceil(value: number): number {
  const nearest = Math.round(value);
  return Math.abs(value - nearest) <= 1e-9 * Math.max(1, Math.abs(value)) ? nearest : Math.ceil(value);
}

/**
 * The value of a downward-API `resourceFieldRef` for `container`, as the kubelet computes it:
 * `limits.*` falls back to the node's allocatable when the container sets no limit; `requests.*`
 * to the container's limit (what API defaulting would have filled in), else 0. The value is divided
 * by `divisor` (default 1) and rounded up: CPU in millicores first (`limits.cpu` of 250m is `1`
 * with divisor 1, `250` with divisor 1m), memory and storage in bytes.
 */
export function containerResourceValue(
  selector: ResourceFieldSelector,
  container: Container,
  nodeAllocatable: Readonly<Record<string, string>>,
): string {
  const [scope, resource] = splitResource(selector.resource);
  const limits = container.resources?.limits ?? {};
  const requests = container.resources?.requests ?? {};
  const raw = scope === 'limits' ? (limits[resource] ?? nodeAllocatable[resource]) : (requests[resource] ?? limits[resource]);
  const amount = raw === undefined ? 0 : quantityValue(raw);
  if (amount === undefined) throw new Error(`invalid quantity ${JSON.stringify(raw)} for ${selector.resource}`);
  const divisorValue = selector.divisor === undefined ? 0 : quantityValue(selector.divisor);
  if (divisorValue === undefined || divisorValue < 0) throw new Error(`invalid divisor ${JSON.stringify(selector.divisor)} for ${selector.resource}`);
  const divisor = divisorValue === 0 ? 1 : divisorValue;
  if (resource === 'cpu') return String(ceil(ceil(amount * 1000) / ceil(divisor * 1000)));
  return String(ceil(ceil(amount) / ceil(divisor)));
}

function splitResource(name: string): ['limits' | 'requests', (typeof RESOURCES)[number]] {
  const [scope, resource, ...rest] = name.split('.');
  if ((scope === 'limits' || scope === 'requests') && rest.length === 0 && (RESOURCES as readonly string[]).includes(resource ?? '')) {
    return [scope, resource as (typeof RESOURCES)[number]];
  }
  throw new Error(`unsupported container resource : ${name}`);
}

/** A container or init container of `pod` by name; resourceFieldRef may name any of them. */
export function containerNamed(pod: Pod, name: string): Container {
  const found = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === name);
  if (!found) throw new Error(`container ${name} not found in pod ${pod.metadata.namespace}/${pod.metadata.name}`);
  return found;
}
