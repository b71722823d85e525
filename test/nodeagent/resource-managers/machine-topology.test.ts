// The machine's layout read from sysfs: a written tree of a two-node host, and this host.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus as osCpus } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMachineTopology } from '../../../src/nodeagent/index.js';

const root = mkdtempSync('/tmp/svc-sysfs-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('reading the machine topology', () => {
  it('reads CPUs with their cores, sockets and NUMA nodes, and each node\'s memory, hugepages and distances', () => {
    write('devices/system/cpu/online', '0-3\n');
    // Two sockets of one 2-thread core each; siblings numbered apart (0,2 and 1,3), as Intel does.
    for (const [cpu, core, socket] of [[0, 0, 0], [1, 0, 1], [2, 0, 0], [3, 0, 1]] as const) {
      write(`devices/system/cpu/cpu${cpu}/topology/core_id`, `${core}\n`);
      write(`devices/system/cpu/cpu${cpu}/topology/physical_package_id`, `${socket}\n`);
    }
    write('devices/system/node/node0/cpulist', '0,2\n');
    write('devices/system/node/node1/cpulist', '1,3\n');
    write('devices/system/node/node0/meminfo', 'Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:  1 kB\n');
    write('devices/system/node/node1/meminfo', 'Node 1 MemTotal:        2097152 kB\n');
    write('devices/system/node/node0/distance', '10 21\n');
    write('devices/system/node/node1/distance', '21 10\n');
    write('devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages', '16\n');
    write('devices/system/node/node1/hugepages/hugepages-1048576kB/nr_hugepages', '0\n');
    const machine = readMachineTopology(root);
    expect(machine.cpus).toEqual([
      { id: 0, core: 0, socket: 0, numaNode: 0 },
      { id: 1, core: 1, socket: 1, numaNode: 1 },
      { id: 2, core: 0, socket: 0, numaNode: 0 },
      { id: 3, core: 1, socket: 1, numaNode: 1 },
    ]);
    expect(machine.numaNodes).toEqual([
      { id: 0, cpus: [0, 2], memoryBytes: 4 * 1024 ** 3, hugepages: {}, distances: [10, 21] },
      { id: 1, cpus: [1, 3], memoryBytes: 2 * 1024 ** 3, hugepages: { 'hugepages-2Mi': 32 * 1024 ** 2 }, distances: [21, 10] },
    ]);
  });

  it('reads this host: every CPU the OS counts, each on a NUMA node sysfs lists', () => {
    const machine = readMachineTopology();
    expect(machine.cpus.length).toBe(osCpus().length);
    const nodes = new Set(machine.numaNodes.map((n) => n.id));
    for (const cpu of machine.cpus) expect(nodes.has(cpu.numaNode)).toBe(true);
    expect(machine.numaNodes.every((n) => n.memoryBytes > 0)).toBe(true);
  });
});
