#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=1 --single-threaded --optimize-for-size
// The `nodeagent` bin: everything lives in nodeagent-command.ts, importable without running anything.
// V8 flags for a long-lived daemon of small, short-lived allocations, read only at start (hence
// the shebang), each measured by `npm run bench:pod-start` (agent RSS with 100 pods):
// - a 1 MiB young generation (V8 grows it to 16 MiB per semi-space by default): 177 -> ~110 MB;
// - `--single-threaded`: no concurrent compiler or collector threads, whose scratch memory stays
//   resident; the collector runs on the main thread, which an agent relisting once a second has
//   time for; with `--optimize-for-size` (smaller heap growth steps, leaner code): ~120 -> ~104 MB;
// - and for glibc's malloc, one arena: each thread that allocates (libuv's pool, for files and
//   crypto) otherwise gets a 64 MiB arena of its own whose freed pages stay resident: ~9 MB more.
import { runBin } from './command.js';
import { main } from './nodeagent-command.js';

await runBin(main);
