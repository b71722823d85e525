// What Linux's /proc says of another process: its CPU time and its resident memory. For the
// benches that measure a daemon from outside (its own numbers would cost it to report).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Milliseconds per clock tick of /proc/<pid>/stat (USER_HZ is 100 on Linux). */
export const MS_PER_TICK = 10;

/** CPU time the process has used, user + system, in clock ticks (all its threads). */
export function cpuTicks(pid: number): number {
  // The command name in parentheses may hold spaces: the fields are counted after it.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Resident memory now and at its peak (VmRSS, VmHWM), and now's split into anonymous pages (heaps,
 * malloc) and file pages (the node binary's code, mostly: the same for any Node process), in MB
 * with one decimal.
 */
export function residentMb(pid: number): { rss: number; peak: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Math.round((Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024) * 10) / 10;
  return { rss: mb('VmRSS'), peak: mb('VmHWM'), anon: mb('RssAnon'), file: mb('RssFile') };
}

/** How many sockets the process holds open (TCP and unix alike: its fds that are sockets). */
export function openSockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n += 1;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return n;
}
