import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites start real etcd processes and sqlite files; the machine has two cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for a state that comes eventually (a watch event drawn in the browser, a
    // status written by a loop); its deadline is the test's, not vitest's default of one second,
    // which a loaded machine passes (a dashboard test failed after 1.2 s so). Below testTimeout, so
    // a poll that never succeeds reports what it waited for rather than "Test timed out".
    expect: { poll: { timeout: 50_000 } },
    globalSetup: ['test/setup/global.ts'],
  },
});
