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
