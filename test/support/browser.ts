/**
 * The browser the page tests drive: Debian's chromium through playwright-core (Playwright's own
 * browser download cannot reach its host here). A test file skips, saying why, when it is missing.
 * Screenshots go to a temporary folder, or to docs/screenshots/ when USP_SCREENSHOTS=1.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Say once, in the test output, that a browser suite is skipped and why. */
export function noteWithoutChromium(suite: string): void {
  if (!HAVE_CHROMIUM) console.warn(`[${suite}] skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

export const SHOTS =
  process.env.USP_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '../../docs/screenshots')
    : join(tmpdir(), 'usp-screenshots');

/** axe-core's source, injected into a page (in a context that bypasses the page's CSP). */
export const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Headless chromium with the flags this closed network needs; a loaded machine gets a minute to start it. */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  mkdirSync(SHOTS, { recursive: true });
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

/** axe-core's serious and critical violations on a page or frame of an `axeContext` (or one given AXE), as `id: help`. */
export async function axeViolations(
  page: Pick<import('playwright-core').Page, 'evaluate' | 'addScriptTag'>,
): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.addScriptTag({ content: AXE });
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: Array<{ id: string; impact: string; help: string }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help}`);
}
