#!/usr/bin/env node
// The `svc-controller-manager` bin: everything lives in controller-manager-command.ts, importable without running anything.
import { runBin } from './command.js';
import { main } from './controller-manager-command.js';

await runBin(main);
