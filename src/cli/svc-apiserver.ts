#!/usr/bin/env node
// The `svc-apiserver` bin: everything lives in apiserver-command.ts, importable without running anything.
import { main } from './apiserver-command.js';
import { runBin } from './command.js';

await runBin(main);
