#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=50
// The `svc-controller-manager` bin: everything lives in controller-manager-command.ts, importable without running anything.
// V8 flags, read only at start (hence the shebang), measured by `npm run bench:controller-manager-scale`
// (the built bin over 10,000 pods with every loop, the flags read from this line; COMPARE_FLAGS there
// measures other sets back to back):
// - a 2 MiB young generation (V8 grows it to 16 MiB per semi-space, 32 MiB committed, under the
//   informers' decode churn): RSS 255-282 MB with Node's defaults;
// - the old generation grown by a fixed 1.5x of its live size after a major collection, so the
//   garbage a 2 MiB young generation promotes is collected before RSS passes 200 MB. It replaces
//   `--optimize-for-size`, which held RSS as low but made every major collection a memory-reducing
//   one every few seconds while idle (idle CPU 3.4-4.6 % of a core against 0.9 % with these flags,
//   same run; RSS 194 MB at steady state, 163 MB after 30 idle seconds; docs/benchmarks.md).
// The concurrent collector and compiler threads stay: unlike the node agent, the manager's
// reconcile latency is a goal of its own.
import { runBin } from './command.js';
import { main } from './controller-manager-command.js';

await runBin(main);
