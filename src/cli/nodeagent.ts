#!/usr/bin/env node
// The `nodeagent` bin: everything lives in nodeagent-command.ts, importable without running anything.
import { runBin } from './command.js';
import { main } from './nodeagent-command.js';

await runBin(main);
