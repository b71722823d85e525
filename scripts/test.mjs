#!/usr/bin/env node
// The one test command (`npm test`): provision what the suites need, run every vitest suite on the
// machine's Node.js and again on Node 24 (the active LTS; svc supports 20, 22 and 24), and end
// with a plain `N passed, N failed` line over both runs, so a run that executed nothing is visible.
// SVC_TEST_NODES=current runs the machine's Node only (a quicker local loop); CI runs both.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { provision } from './provision.mjs';
import { provisionNode } from './second-node.mjs';

const SECOND_MAJOR = '24';

provision();

/** One vitest run with `node`; returns its counts and whether it exited cleanly. */
function suite(node, label) {
  const results = `.vitest-results${label === 'current' ? '' : `-node${label}`}.json`;
  rmSync(results, { force: true });
  console.log(`\n== every suite on Node ${spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim()} ==\n`);
  const run = spawnSync(
    node,
    ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
    // Children the suites start with `node` (bins with a node shebang, npx) run on the same Node.
    { stdio: 'inherit', env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` } },
  );
  let passed = 0;
  let failed = 0;
  const failures = [];
  try {
    const report = JSON.parse(readFileSync(results, 'utf8'));
    passed = report.numPassedTests ?? 0;
    failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
    if (report.numTotalTestSuites > 0 && report.numFailedTestSuites > 0 && failed === 0) failed = report.numFailedTestSuites;
    failures.push(...failuresIn(report));
  } catch {
    failed = Math.max(failed, 1);
  }
  console.log(`Node ${label}: ${passed} passed, ${failed} failed`);
  return { label, passed, failed, failures, ok: run.status === 0 && failed === 0 && passed > 0 };
}

/**
 * What failed in one vitest JSON report, a few lines each: a whole file (an import or hook error)
 * or one test. Printed again after every pass because CI keeps only the end of the output.
 */
function failuresIn(report) {
  const lines = (text) => String(text ?? '').split('\n').filter((l) => l.trim() !== '' && !/node_modules|node:internal|new Promise/.test(l)).slice(0, 6).join('\n    ');
  const out = [];
  for (const file of report.testResults ?? []) {
    const name = String(file.name ?? '').replace(`${process.cwd()}/`, '');
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failedTests) out.push(`${name} > ${t.fullName}\n    ${lines((t.failureMessages ?? []).join('\n'))}`);
    if (file.status === 'failed' && failedTests.length === 0) out.push(`${name} (the file)\n    ${lines(file.message)}`);
  }
  return out;
}

const runs = [suite(process.execPath, 'current')];
const nodes = process.env.SVC_TEST_NODES ?? `current,${SECOND_MAJOR}`;
if (nodes.split(',').includes(SECOND_MAJOR) && process.versions.node.split('.')[0] !== SECOND_MAJOR) {
  let second;
  try {
    second = provisionNode(SECOND_MAJOR);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
  }
  runs.push(second ? suite(second, SECOND_MAJOR) : { passed: 0, failed: 1, ok: false });
}

for (const run of runs) {
  if (run.failures.length === 0) continue;
  console.log(`\nFailed on Node ${run.label}:`);
  for (const failure of run.failures) console.log(`  ${failure}`);
}
const passed = runs.reduce((sum, r) => sum + r.passed, 0);
const failed = runs.reduce((sum, r) => sum + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(runs.every((r) => r.ok) ? 0 : 1);
