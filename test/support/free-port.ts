/**
 * A port for a process a test starts that binds it later and cannot bind port 0 and say which it
 * got (etcd, a node agent daemon, a manager told `--secure-port`). A port a port-0 listen handed
 * out and gave back is where the next port-0 listen of any other test may land before that
 * process binds it, and the process then fails to start. So the port is taken below the kernel's
 * ephemeral range (net.ipv4.ip_local_port_range), where no port-0 listen and no outgoing
 * connection lands, at random (two suites picking at once rarely meet), and checked free now.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports below this are left to services a host may run (etcd's 2379, 6443, 8080, 10250...). */
const LOWEST = 20_000;

function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > LOWEST + 1000) return low;
  } catch {
    // not Linux: the usual default
  }
  return 32_768;
}

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port free now on `host` (all interfaces by default, which covers loopback too), or on each of several. */
export async function freePort(host: string | readonly string[] = '0.0.0.0'): Promise<number> {
  const hosts = typeof host === 'string' ? [host] : host;
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    let free = true;
    for (const h of hosts) if (free) free = await bindable(port, h);
    if (free) return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${end}`);
}

/** `count` distinct free ports. */
export async function freePorts(count: number, host = '0.0.0.0'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort(host));
  return [...ports];
}
