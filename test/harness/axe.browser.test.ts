/**
 * The suites' accessibility check (test/support/browser.ts) skips axe-core's rules whose own impact
 * is minor or moderate, for speed. This file shows it still finds every serious and critical
 * violation of a page that has some of each kind, the same ones as a check with every rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AXE_RUN,
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
} from '../support/browser.js';

noteWithoutChromium('axe.browser');

const EVERY_RULE = 'axe.run(document, { resultTypes: ["violations"] })';

/** Serious and critical: an image with no text, grey on white, a button with no name, a field with no label. Moderate: no landmarks, headings that skip a level. */
const PAGE = `<!doctype html><html lang="en"><head><title>A page with faults</title></head><body>
<h1>Faults</h1><h4>Skipped two levels</h4>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p style="color:#c8c8c8;background:#ffffff">Hard to read</p>
<button></button>
<input type="text">
</body></html>`;

describe.skipIf(!HAVE_CHROMIUM)('the accessibility check (skipped without /usr/bin/chromium)', () => {
  let browser: import('playwright-core').Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('finds the serious and critical violations a check with every rule finds, and skips only minor and moderate rules', async () => {
    const context = await axeContext(browser);
    try {
      const page = await context.newPage();
      await page.setContent(PAGE);
      const found = await axeViolations(page);
      const ids = found.map((v) => v.split(':')[0]).sort();
      expect(ids).toEqual(['button-name', 'color-contrast', 'image-alt', 'label']);
      expect(await axeViolations(page, EVERY_RULE)).toEqual(found);

      // The rules left out are those that declare a minor or moderate impact, and no other.
      const rules = (await page.evaluate(
        '(axe._audit.rules).map((r) => ({ id: r.id, impact: r.impact ?? null }))',
      )) as Array<{ id: string; impact: string | null }>;
      const skipped = rules.filter((r) => r.impact === 'minor' || r.impact === 'moderate').map((r) => r.id);
      expect(skipped).toContain('region');
      expect(skipped.length).toBeLessThan(rules.length / 2);
      const every = (await page.evaluate(EVERY_RULE)) as { violations: Array<{ id: string; impact: string }> };
      const checked = (await page.evaluate(AXE_RUN)) as { violations: Array<{ id: string }> };
      // The check with every rule reports moderate ones here (no landmarks, a skipped heading level),
      // each from a skipped rule; the suites' check does not run them.
      const milder = every.violations.filter((v) => v.impact === 'moderate' || v.impact === 'minor').map((v) => v.id);
      expect(milder).toEqual(expect.arrayContaining(['heading-order', 'region']));
      for (const id of milder) expect(skipped).toContain(id);
      expect(checked.violations.map((v) => v.id).filter((id) => milder.includes(id))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
