#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=32768 node --max-semi-space-size=1 --single-threaded --optimize-for-size --flush-baseline-code
// The `nodeagent` bin: everything lives in nodeagent-command.ts, importable without running anything.
// V8 flags for a long-lived daemon of small, short-lived allocations, read only at start (hence
// the shebang), each measured by `npm run bench:pod-start` (agent RSS with 100 pods):
// - a 1 MiB young generation (V8 grows it to 16 MiB per semi-space by default): 177 -> ~110 MB;
// - `--single-threaded`: no concurrent compiler or collector threads, whose scratch memory stays
//   resident; the collector runs on the main thread, which an agent relisting once a second has
//   time for; with `--optimize-for-size` (smaller heap growth steps, leaner code): ~120 -> ~104 MB;
// - `--flush-baseline-code`: baseline (Sparkplug) code of functions not run lately is dropped, as
//   their bytecode already is; most of the agent's code runs once at start: ~78 -> ~76 MB;
// - and for glibc's malloc, a fixed mmap threshold: blocks of 32 KiB and more get mappings of their
//   own, returned to the system when freed. By default glibc raises its threshold after the first
//   large free (up to 32 MiB), and from then on large transient blocks come from the heap, where
//   a live block above them keeps the freed pages resident: ~97 -> ~91 MB. (One malloc
//   arena, MALLOC_ARENA_MAX=1, measured worse alone, 106-113 MB, and no better with this.)
// The installed bin is this file bundled (scripts/bundle-nodeagent.ts), this line included.
import { runBin } from './command.js';
import { main } from './nodeagent-command.js';

await runBin(main);
