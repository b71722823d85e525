#!/usr/bin/env node
// The one test command (`npm test`): provision what the suites need, run every vitest suite,
// and end with a plain `N passed, N failed` line so a run that executed nothing is visible.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { provision } from './provision.mjs';

provision();

const results = '.vitest-results.json';
rmSync(results, { force: true });
const run = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: 'inherit', env: process.env },
);

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  if (report.numTotalTestSuites > 0 && report.numFailedTestSuites > 0 && failed === 0) failed = report.numFailedTestSuites;
} catch {
  failed = Math.max(failed, 1);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
