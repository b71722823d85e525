#!/usr/bin/env node
// The `svc-scheduler` bin: everything lives in scheduler-command.ts, importable without running anything.
import { runBin } from './command.js';
import { main } from './scheduler-command.js';

await runBin(main);
