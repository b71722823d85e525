// A container's compute resources as numbers: what its config's CPU shares, quota and memory
// limit are computed from.
import { quantityValue, type Container } from '../../api/index.js';

/** A container's request of a resource; a limit alone stands for the request, as API defaulting does. */
export function requestOf(container: Container, resource: string): number | undefined {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  return quantityValue(requests[resource] ?? limits[resource]);
}

export const limitOf = (container: Container, resource: string): number | undefined => quantityValue(container.resources?.limits?.[resource]);
