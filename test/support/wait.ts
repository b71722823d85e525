/**
 * How long a test waits for a state that comes eventually (a status the server writes in the
 * background, an event a watch delivers): the same as expect.poll's (vitest.config.ts), below the
 * test timeout. A wait bounded by a count of short sleeps is a timing assertion a loaded machine
 * fails (docs/testing.md).
 */
export const WAIT_MS = 50_000;

/** Resolves once `check` holds, trying every `everyMs`; throws naming `what` after WAIT_MS. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, everyMs = 10): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
