import { readFileSync } from 'node:fs';

/**
 * The listen backlog a server asks for. Node's default is 511; the kernel silently caps any value
 * at `net.core.somaxconn`, and a full queue drops SYNs (the density run lost ~1,900 a second at
 * 511, docs/benchmarks.md). Unasked, the backlog is somaxconn itself, as Go's `net.Listen` (so
 * kube-apiserver) takes it; asked for more than the kernel allows, the answer says so.
 */
export interface ListenBacklog {
  readonly backlog: number;
  /** Set when the asked value was above `net.core.somaxconn`: what to log. */
  readonly capped?: string;
}

const SOMAXCONN = '/proc/sys/net/core/somaxconn';
/** Node's own default, used where somaxconn cannot be read (not Linux). */
const NODE_DEFAULT = 511;

/** `net.core.somaxconn`, or undefined where there is no such file. */
export function readSomaxconn(path = SOMAXCONN): number | undefined {
  try {
    const value = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

export function listenBacklog(asked: number | undefined, kernelLimit: () => number | undefined = readSomaxconn): ListenBacklog {
  const somaxconn = kernelLimit();
  if (asked === undefined) return { backlog: somaxconn ?? NODE_DEFAULT };
  if (somaxconn !== undefined && asked > somaxconn) {
    return { backlog: somaxconn, capped: `the listen backlog ${asked} is capped at ${somaxconn} by net.core.somaxconn (raise it with sysctl -w net.core.somaxconn=${asked})` };
  }
  return { backlog: asked };
}
