#!/usr/bin/env -S node --max-semi-space-size=1
// The `nodeagent` bin: everything lives in nodeagent-command.ts, importable without running anything.
// A long-lived daemon of small, short-lived allocations: a 1 MiB young generation (V8 grows it to
// 16 MiB per semi-space by default) keeps its resident memory about 40 % lower for a few more
// scavenges. V8 reads the flag only at start, hence the shebang.
import { runBin } from './command.js';
import { main } from './nodeagent-command.js';

await runBin(main);
