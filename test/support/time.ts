/** Time in tests: the one fixed instant test servers and records start from, and bounded polling instead of sleeping. */

/** Tuesday 2026-12-01 12:00 in New York (17:00Z): the demo business is open every day after it. */
export const TEST_NOW = Date.parse('2026-12-01T17:00:00Z');

/**
 * Polls `predicate` every 10 ms for at most `ms`; resolves true as soon as it holds, and throws on
 * timeout naming `what` (a string, or a function read at the timeout for what was seen by then), so a
 * wait that times out fails its test whether or not its result is looked at.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  ms = 5000,
  what: string | (() => string) = 'the awaited condition',
): Promise<true> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await predicate()) return true;
    if (Date.now() >= deadline) throw new Error(`not within ${ms} ms: ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Polls `probe` every `everyMs` (50 ms) until it answers a value (anything but undefined, null or false) and
 * resolves with that value; throws after `ms`, naming `what`. The wait to use when the test needs the
 * value (`waitFor` answers only true, or throws as this does).
 */
export async function waitUntil<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 5000,
  what = 'the awaited condition',
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The environment that puts a child process (the CLI, `serve`, `mcp`) on the test's clock, so that
 * every process in a test agrees on "now": `fixed` stands still at `ms` (as a test server's manual
 * clock does), `start` reads `ms` when the child starts and runs on from there. A child starts a
 * little after this is called, so a running clock's child is never ahead of the test's.
 */
export function clockEnv(ms: number, mode: 'fixed' | 'start' = 'start'): { USP_CLOCK: string } {
  return { USP_CLOCK: `${mode}:${new Date(ms).toISOString()}` };
}
