// Debian's chromium (scripts/provision.mjs installs it) driven by playwright-core, for the
// dashboard's browser tests. A missing one fails the suite, never skips it.
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  const path = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
  if (path === '') throw new Error("chromium is not installed (scripts/provision.mjs installs Debian's chromium)");
  // --no-sandbox: the tests run as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: path, headless: true, args: ['--no-sandbox'] });
}
