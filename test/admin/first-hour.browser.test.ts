/**
 * The owner's first hour, in a real browser against the built command line (issue 37): `usp-server
 * init` writes her business, `serve` prints a one-time setup link, she makes her account there and
 * signs in, changes a price typed as `70.00` and as `70`, sets next week's hours, books a walk-in,
 * finds that client by name and by a phone typed another way, and sees the mail that was sent. At
 * 390 px the walk-in form asks for the name before the times (grouped by part of the day) and the
 * staff-hours table keeps its headings; every screen passes axe-core at 390 px and 1280 px.
 *
 * The server runs on the machine's clock, so every date here comes from `Date.now()` (the browser's
 * cookies run on that clock too).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  AXE,
  axeContext,
  axeViolations,
  HAVE_CHROMIUM,
  launchBrowser,
  noteWithoutChromium,
  photograph,
} from '../support/browser.js';
import { ensureBuilt } from '../support/build.js';
import { runCli, startServeCli, type RunningCli } from '../support/cli.js';
import { waitFor } from '../support/time.js';

noteWithoutChromium('first-hour.browser');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const EMAIL = 'rosa@studio.example';
const PASSWORD = 'a long and private passphrase';
const ZONE = 'America/New_York';

/** A local date in the business zone, `days` after today there (the server's clock is the machine's). */
function localDate(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(Date.now());
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
/** Next week's Monday, in the business zone. */
function nextMonday(): string {
  const weekday = new Date(`${localDate(0)}T12:00:00Z`).getUTCDay(); // 0 Sunday .. 6 Saturday
  return localDate((8 - weekday) % 7 || 7);
}
const plus = (date: string, days: number) => {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

describe.skipIf(!HAVE_CHROMIUM)(
  "the owner's first hour, from init to the sent mail (skipped without /usr/bin/chromium)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'usp-first-hour-'));
    const env = { XDG_DATA_HOME: join(dir, 'data') };
    const mailDir = join(dir, 'mail');
    let browser: Browser;
    let server: RunningCli;
    let setupLink: string;
    beforeAll(async () => {
      ensureBuilt();
      browser = await launchBrowser();
      const file = join(dir, 'rosa.json');
      const init = await runCli(
        [
          'init',
          '--name',
          "Rosa's Hair Studio",
          '--timezone',
          ZONE,
          '--currency',
          'USD',
          '--service',
          'Cut & blow-dry',
          '--price',
          '45',
          '--minutes',
          '45',
          '--staff',
          'Rosa',
          '--out',
          file,
        ],
        {
          env,
          timeoutMs: 60_000,
        },
      );
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain(`Next: npx usp-server serve --config ${file}`);
      server = await startServeCli(
        ['--config', file, '--db', join(dir, 'rosa.db'), '--mail-dir', mailDir, '--port', '0'],
        { env, timeoutMs: 60_000 },
      );
      await waitFor(() => /admin\/setup\?token=/.test(server.stderr()), 10_000);
      setupLink = /https?:\/\/\S+\/admin\/setup\?token=[\w-]+/.exec(server.stderr())![0];
    }, 300_000);
    afterAll(async () => {
      await server?.stop();
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function signedIn(size: keyof typeof SIZES, scripts = false): Promise<Page> {
      const context = await browser.newContext({
        viewport: SIZES[size],
        javaScriptEnabled: scripts,
        bypassCSP: scripts,
        locale: 'en-US',
      });
      if (scripts) await context.addInitScript({ content: AXE });
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/login`);
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/admin');
      return page;
    }

    /** Serious and critical axe-core findings on `paths` at one width, signed in (scripts on only for axe itself). */
    async function axeFindings(paths: readonly string[], size: keyof typeof SIZES): Promise<string[]> {
      const page = await signedIn(size, true);
      const found: string[] = [];
      for (const path of paths) {
        await page.goto(server.url + path);
        for (const v of await axeViolations(page)) found.push(`${path} @${size} ${v}`);
      }
      await page.context().close();
      return found;
    }

    const flash = async (page: Page) => (await page.textContent('.flash')) ?? '';
    const monday = nextMonday();
    const tuesday = plus(monday, 1);
    const screens: string[] = [];

    it('the setup link makes her account in the browser and signs her in; the setup and sign-in pages pass axe', async () => {
      for (const size of ['phone', 'desktop'] as const) {
        const context = await axeContext(browser, { viewport: SIZES[size] });
        const page = await context.newPage();
        await page.goto(setupLink);
        expect(await axeViolations(page)).toEqual([]);
        await context.close();
      }
      const context = await browser.newContext({ viewport: SIZES.phone, javaScriptEnabled: false, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(setupLink);
      expect(await page.textContent('main')).toContain('Create your account');
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', PASSWORD);
      await page.fill('input[name=password_again]', PASSWORD);
      await page.click('button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/admin');
      expect(await page.textContent('header')).toContain("Rosa's Hair Studio");
      await context.close();
      // And she signs in with her password, in a browser of her own.
      await (await signedIn('desktop')).context().close();
      screens.push('/admin', '/admin/login');
    }, 120_000);

    it('a price typed as 70.00 is seventy dollars, and so is 70', async () => {
      const page = await signedIn('phone');
      await page.goto(`${server.url}/admin/ui/services`);
      const card = page.locator('section', { has: page.locator('h2', { hasText: 'Cut & blow-dry' }) });
      expect(await card.locator('input[name=amount]').inputValue()).toBe('45.00');
      await card.locator('input[name=amount]').fill('70.00');
      await card.locator('button', { hasText: 'Save Cut & blow-dry' }).click();
      expect(await flash(page)).toContain('$70.00');
      expect(await flash(page)).not.toContain('$0.70');
      expect(await card.locator('input[name=amount]').inputValue()).toBe('70.00');
      await card.locator('input[name=amount]').fill('70');
      await card.locator('button', { hasText: 'Save Cut & blow-dry' }).click();
      expect(await flash(page)).toContain('nothing changed');
      expect(await card.locator('input[name=amount]').inputValue()).toBe('70.00');
      await page.context().close();
      screens.push('/admin/ui/services');
    }, 60_000);

    it("next week's hours are set in one form, and the walk-in form shows that day's times", async () => {
      const page = await signedIn('phone');
      await page.goto(`${server.url}/admin/ui/time-off`);
      const form = page.locator('form#exception-range');
      await form.locator('input[name=date]').fill(monday);
      await form.locator('input[name=until]').fill(plus(monday, 6));
      await form.locator('input[name=opens]').fill('10:00');
      await form.locator('input[name=closes]').fill('14:00');
      await form.locator('button[type=submit]').click();
      expect(await page.locator('.flash.ok').count(), await flash(page)).toBe(1);
      const listed = (await page.textContent('main')) ?? '';
      expect(listed).toContain(`${tuesday}: open 10:00–14:00`);
      await page.goto(`${server.url}/admin/ui/walk-in?date=${tuesday}`);
      const times = await page
        .locator('input[name=slot_id]')
        .evaluateAll((inputs) => inputs.map((i) => i.parentElement?.textContent?.slice(0, 5)));
      expect(times[0]).toBe('10:00');
      expect(times.every((t) => t! >= '10:00' && t! < '14:00')).toBe(true);
      await page.context().close();
      screens.push('/admin/ui/time-off', `/admin/ui/walk-in?date=${tuesday}`);
    }, 60_000);

    it('on a phone the walk-in form asks for the name before the times, grouped by part of the day', async () => {
      const page = await signedIn('phone');
      await page.goto(`${server.url}/admin/ui/walk-in?date=${plus(monday, 7)}`);
      const name = await page.locator('input[name=first_name]').first().boundingBox();
      const firstTime = await page.locator('input[name=slot_id]').first().boundingBox();
      expect(name!.y).toBeLessThan(firstTime!.y);
      const groups = await page.locator('fieldset.slots legend').allTextContents();
      expect(groups.map((g) => g.split(' ')[0])).toEqual(['Morning', 'Afternoon']);
      // Two or more times side by side on a 390 px screen.
      const boxes = await page
        .locator('fieldset.slots label')
        .evaluateAll((ls) => ls.slice(0, 2).map((l) => l.getBoundingClientRect().top));
      expect(boxes[0]).toBe(boxes[1]);
      await photograph(page, 'walk-in-phone', { fullPage: false });
      await page.context().close();
      screens.push(`/admin/ui/walk-in?date=${plus(monday, 7)}`);
    }, 60_000);

    it('on a phone the staff-hours table keeps its headings in each row', async () => {
      const page = await signedIn('phone');
      await page.goto(`${server.url}/admin/ui/staff`);
      const hours = page.locator('section', { has: page.locator('h2', { hasText: 'Rosa' }) }).locator('table.hours');
      expect(await hours.locator('thead').isVisible()).toBe(false);
      const headings = await hours
        .locator('tbody tr')
        .first()
        .locator('td')
        .evaluateAll((tds) => tds.map((td) => td.ownerDocument.defaultView!.getComputedStyle(td, '::before').content));
      expect(headings).toEqual(['none', '"Opens"', '"Closes"', '"Opens again"', '"Closes"']);
      // Each day's opening and closing side by side, under the day's name.
      const tops = await hours
        .locator('tbody tr')
        .first()
        .locator('td')
        .evaluateAll((tds) => tds.map((td) => Math.round(td.getBoundingClientRect().top)));
      expect(tops[1]).toBeGreaterThan(tops[0]!);
      expect([tops[1] === tops[2], tops[3] === tops[4]]).toEqual([true, true]);
      await photograph(hours, 'staff-hours-phone', {}); // the table alone: an element has no full page
      await page.context().close();
      screens.push('/admin/ui/staff');
    }, 60_000);

    it('a walk-in is booked, the client is found by name and by a phone typed another way, and the mail sent is listed', async () => {
      const page = await signedIn('phone');
      await page.goto(`${server.url}/admin/ui/walk-in`);
      await page.fill('form.filters input[name=date]', tuesday);
      await page.click('form.filters button[type=submit]');
      const form = page.locator('form', { has: page.locator('input[name=slot_id]') });
      await form.locator('input[name=first_name]').fill('Zoë');
      await form.locator('input[name=last_name]').fill('Quintana');
      await form.locator('input[name=email]').fill('zoe@example.com');
      await form.locator('input[name=phone_number]').fill('+1 212 555 0134');
      await form.locator('input[name=slot_id]').first().check();
      await form.locator('button[type=submit]').click();
      expect(new URL(page.url()).pathname).toMatch(/^\/admin\/ui\/bookings\/bkg_/);
      const bookingPath = new URL(page.url()).pathname;
      expect(await page.textContent('main')).toContain('Zoë Quintana');

      await page.goto(`${server.url}/admin/ui/clients`);
      await page.fill('input[name=name]', 'zoe');
      await page.click('form.filters button[type=submit]');
      await page.click('a:has-text("Zoë Quintana")');
      expect(await page.locator(`a[href="${bookingPath}"]`).count()).toBe(1);

      await page.goto(`${server.url}/admin/ui/clients`);
      await page.fill('input[name=phone]', '(212) 555-0134');
      await page.click('form.filters button[type=submit]');
      expect(await page.locator(`a[href="${bookingPath}"]`).count()).toBe(1);

      // The mail worker writes the confirmation to the mail folder; the Mail screen lists it as sent.
      await waitFor(
        () =>
          existsSync(mailDir) &&
          readdirSync(mailDir).some((f) => readFileSync(join(mailDir, f), 'utf8').includes('zoe@example.com')),
        20_000,
      );
      let row = '';
      await waitFor(
        async () => {
          await page.goto(`${server.url}/admin/ui/mail`);
          const confirmation = page
            .locator('#mail-log ~ table tbody tr', { hasText: 'zoe@example.com' })
            .filter({ hasText: 'Booking confirmed' });
          row =
            (await confirmation
              .first()
              .textContent({ timeout: 1000 })
              .catch(() => '')) ?? '';
          return row.includes('sent');
        },
        20_000,
        () => `the confirmation listed as sent on the Mail screen (last row: ${row})`,
      );
      expect(row).toContain('Booking confirmed');
      expect(row).toContain('sent');
      await page.context().close();
      screens.push('/admin/ui/clients?name=zoe', '/admin/ui/clients?phone=2125550134', '/admin/ui/mail', bookingPath);
    }, 90_000);

    it('every screen of the hour passes axe-core at 390 px and 1280 px', async () => {
      const found = [...(await axeFindings(screens, 'phone')), ...(await axeFindings(screens, 'desktop'))];
      expect(found).toEqual([]);
    }, 180_000);
  },
);
