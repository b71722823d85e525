#!/usr/bin/env node
// The `svc` bin: everything lives in svc-command.ts, importable without running anything.
import { runBin } from './command.js';
import { main } from './svc-command.js';

await runBin(main);
