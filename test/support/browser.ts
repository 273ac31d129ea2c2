/**
 * The browser the page tests drive: Debian's chromium through playwright-core (Playwright's own
 * browser download cannot reach its host here). A test file skips, saying why, when it is missing.
 * Screenshots are taken only when someone will look at them: with USP_SCREENSHOTS=1, into docs/screenshots/.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Say once, in the test output, that a browser suite is skipped and why. */
export function noteWithoutChromium(suite: string): void {
  if (!HAVE_CHROMIUM) console.warn(`[${suite}] skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

const SHOTS = join(import.meta.dirname, '../../docs/screenshots');

/**
 * A screenshot into docs/screenshots/ when USP_SCREENSHOTS=1 (the README names the suites that rewrite
 * them), and nothing otherwise. Ordinary runs wrote them to a temporary folder nobody read, at 0.39 s
 * a full-page shot on an idle machine: more than axe-core's check of the same screen (0.30 s), and
 * about a third of a dashboard sweep. What a test asserts of a page is its checks, not the picture.
 */
export async function photograph(
  target: { screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown> },
  name: string,
  options: { fullPage?: boolean } = { fullPage: true },
): Promise<void> {
  if (process.env.USP_SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await target.screenshot({ ...options, path: join(SHOTS, `${name}.png`) });
}

/** axe-core's source, injected into a page (in a context that bypasses the page's CSP). */
export const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Headless chromium with the flags this closed network needs; a loaded machine gets a minute to start it. */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: 60_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    // playwright-core gives every launch a fresh user-data-dir of its own (it refuses --user-data-dir).
  });
}

/**
 * A browser context that may run axe-core on any page it loads: CSP bypassed, and axe-core registered
 * once as an init script, so every document has `axe` and a check is one `axe.run`. Make one per
 * group of checks and reuse its page: a context made per check cost 1-2 s, and the 500 KB script
 * sent and compiled per page (`addScriptTag`) another 1-2 s, on the loaded 2-core machine (a third of
 * the browser suites' time).
 */
export async function axeContext(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<import('playwright-core').BrowserContext> {
  const context = await browser.newContext({ ...options, bypassCSP: true });
  await context.addInitScript({ content: AXE });
  return context;
}

/**
 * One axe-core check, as an expression to evaluate in a page or frame that has `axe`: violations only,
 * without the rules whose own impact is minor or moderate. axe reports a rule that declares an impact
 * at that impact (every node's checks take it), so those rules can never give a serious or critical
 * violation, which is all the suites assert on; they were 41% of a check's time on the dashboard's
 * screens (`region` walks every element). test/harness/axe.browser.test.ts shows that a page's
 * serious and critical violations are the same with and without them.
 */
export const AXE_RUN = `axe.run(document, {
  resultTypes: ['violations'],
  rules: Object.fromEntries(
    axe._audit.rules
      .filter((rule) => rule.impact === 'minor' || rule.impact === 'moderate')
      .map((rule) => [rule.id, { enabled: false }]),
  ),
})`;

/** axe-core's serious and critical violations on a page or frame of an `axeContext` (or one given AXE), as `id: help`. */
export async function axeViolations(
  page: Pick<import('playwright-core').Page, 'evaluate' | 'addScriptTag'>,
  run: string = AXE_RUN,
): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.addScriptTag({ content: AXE });
  const result = (await page.evaluate(run)) as {
    violations: Array<{ id: string; impact: string; help: string }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help}`);
}
