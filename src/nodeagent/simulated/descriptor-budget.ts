/**
 * How many file descriptors a fleet of hollow nodes needs, and whether this process may open
 * them. Each node holds one socket for its pod watch (HTTP/1.1: one watch per connection, as the
 * API server serves them), the fleet's request clients hold up to their pool size each, and the
 * process has a few of its own (stdio, the event loop's, module files). Node.js raises its soft
 * limit to the hard one at start, so the soft limit read here is what the process has; the usual
 * default of 1,024 stops a fleet of a thousand nodes at its 1,000th watch with EMFILE, which
 * reads as nodes that never turn Ready.
 */
import { readFileSync } from 'node:fs';

/** Descriptors a fleet of `count` nodes opens at most: a watch each, the request pools (their bounds), and headroom. */
export function fleetDescriptors(count: number, pools: readonly number[]): number {
  return count + pools.reduce((sum, connections) => sum + connections, 0) + 64;
}

/** The soft limit on open files of this process (`/proc/self/limits`), or undefined where there is no /proc. */
export function openFilesLimit(limits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string;
  try {
    text = limits();
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!match) return undefined;
  return match[1] === 'unlimited' ? Infinity : Number(match[1]);
}
