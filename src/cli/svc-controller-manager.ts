#!/usr/bin/env -S node --max-semi-space-size=2 --optimize-for-size
// The `svc-controller-manager` bin: everything lives in controller-manager-command.ts, importable without running anything.
// V8 flags, read only at start (hence the shebang), measured by `npm run bench:controller-manager-scale`
// (the built bin's RSS over 10,000 pods with every loop, the flags read from this line):
// - a 2 MiB young generation (V8 grows it to 16 MiB per semi-space, 32 MiB committed, under the
//   informers' decode churn) and `--optimize-for-size` (smaller old-space growth steps): RSS 255-282 MB
//   with Node's defaults -> 189 MB at steady state, 158 MB after 30 idle seconds (docs/benchmarks.md).
// The concurrent collector and compiler threads stay: unlike the node agent, the manager's
// reconcile latency is a goal of its own.
import { runBin } from './command.js';
import { main } from './controller-manager-command.js';

await runBin(main);
