// CPU sets as the kernel writes them (cpuset.cpus, /sys lists, --reserved-cpus): "0-3,8".
// A set is a sorted array of distinct CPU ids; every operation returns a new one.
import { badRequest, formatIndexIntervals } from '../../api/index.js';

export type CpuSet = readonly number[];

/** Parses a list such as `0-3,8` (empty text is the empty set). Throws a 400 Status naming `what` when it is not one. */
export function parseCpuSet(text: string, what = 'CPU list'): CpuSet {
  const cpus = new Set<number>();
  for (const part of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    const from = Number(match?.[1]);
    const to = match?.[2] !== undefined ? Number(match[2]) : from;
    if (!match || to < from) throw badRequest(`${what}: ${JSON.stringify(part)} is not a CPU or a range of CPUs`);
    for (let cpu = from; cpu <= to; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The kernel's list format, consecutive ids as ranges: the same short form as a Job's index sets. */
export const formatCpuSet = (cpus: Iterable<number>): string => formatIndexIntervals(cpus);

export const cpuSetOf = (cpus: Iterable<number>): CpuSet => [...new Set(cpus)].sort((a, b) => a - b);
export const union = (a: CpuSet, b: Iterable<number>): CpuSet => cpuSetOf([...a, ...b]);
export function difference(a: CpuSet, b: Iterable<number>): CpuSet {
  const drop = new Set(b);
  return a.filter((cpu) => !drop.has(cpu));
}
export function intersection(a: CpuSet, b: Iterable<number>): CpuSet {
  const keep = new Set(b);
  return a.filter((cpu) => keep.has(cpu));
}
export const isSubset = (a: CpuSet, b: CpuSet): boolean => difference(a, b).length === 0;
export const sameCpus = (a: CpuSet, b: CpuSet): boolean => a.length === b.length && a.every((cpu, i) => cpu === b[i]);
