/**
 * The front desk in a real browser (chromium, JavaScript off): a walk-in booked from the free times
 * of a day lands on its booking page; a client's data erased from their page leaves their booking
 * with its time and the buyer shown as erased. The walk-in, client and booking screens pass
 * axe-core with no serious or critical violation at phone and desktop widths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addBusinessUser } from '../../src/operations/index.js';
import { AXE, axeViolations, HAVE_CHROMIUM, launchBrowser, noteWithoutChromium } from '../support/browser.js';
import { BUYER, day, startTestServer, type TestServer } from '../support/server.js';

noteWithoutChromium('front-desk.browser');
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const EMAIL = 'desk@salon.example';
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_CHROMIUM)(
  'the front desk books walk-ins and erases a client (skipped without /usr/bin/chromium)',
  () => {
    let t: TestServer;
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
      t = await startTestServer();
      await addBusinessUser(t.server.store, EMAIL, PASSWORD, t.clock.now());
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    async function deskPage(width: keyof typeof WIDTHS = 'desktop', scripts = false): Promise<Page> {
      const context = await browser.newContext({
        viewport: WIDTHS[width],
        javaScriptEnabled: scripts,
        bypassCSP: scripts,
        locale: 'en-US',
      });
      if (scripts) await context.addInitScript({ content: AXE });
      const page = await context.newPage();
      await page.goto(`${t.url}/admin/login`);
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      return page;
    }

    /** Serious and critical axe-core findings on screens at one width (scripts on only for axe itself), signed in once. */
    async function axeFindings(paths: readonly string[], width: keyof typeof WIDTHS): Promise<string[]> {
      const page = await deskPage(width, true);
      const found: string[] = [];
      for (const path of paths) {
        await page.goto(t.url + path);
        for (const v of await axeViolations(page)) found.push(`${path} @${width} ${v}`);
      }
      await page.context().close();
      return found;
    }

    it('a walk-in is booked from a free time of the day and opens on its booking page with the client linked', async () => {
      const page = await deskPage('phone');
      await page.goto(`${t.url}/admin/ui/walk-in?service_id=svc_haircut&date=${day(1)}`);
      await page.locator('input[name=slot_id]').first().check();
      const form = page.locator('form', { has: page.locator('input[name=slot_id]') });
      await form.locator('input[name=first_name]').fill('Zelda');
      await form.locator('input[name=last_name]').fill('Quinton');
      await form.locator('input[name=phone_number]').fill('+1 555 010 7788');
      await form.locator('input[name=notes]').fill('Walked in, prefers short');
      await form.locator('button[type=submit]').click();
      expect(new URL(page.url()).pathname).toMatch(/^\/admin\/ui\/bookings\/bkg_/);
      const main = await page.textContent('main');
      expect(main).toContain('Booked.');
      expect(main).toContain('Zelda Quinton');
      expect(main).toContain('Walked in, prefers short');
      await page.context().close();
    });

    it("a client's data is erased from their page: the booking keeps its time, the buyer shows as erased", async () => {
      const slot = (
        await t.call('POST', '/availability/query', { service_id: 'svc_haircut', start_date: day(3), end_date: day(3) })
      ).body.slots[0];
      const booking = (await t.call('POST', '/bookings', { service_id: 'svc_haircut', slot_id: slot.id, buyer: BUYER }))
        .body.booking;
      const page = await deskPage('desktop');
      await page.goto(`${t.url}/admin/ui/clients?email=${encodeURIComponent(BUYER.email)}`);
      expect(await page.locator(`a[href="/admin/ui/bookings/${booking.id}"]`).count()).toBe(1);
      await page.locator('input[name=confirm]').check();
      await page.click('button:has-text("Erase their data")');
      expect(await page.textContent('[role=status]')).toContain('erased everywhere');
      await page.goto(`${t.url}/admin/ui/bookings/${booking.id}`);
      const main = (await page.textContent('main')) ?? '';
      expect(main).toContain('Erased Erased');
      expect(main).not.toContain(BUYER.last_name);
      await page.context().close();
    });

    it('the walk-in, client and booking screens pass axe-core at phone and desktop widths', async () => {
      const phoneOnly = (await t.server.store.read((tx) => tx.bookings.recent(5))).find(
        (r) => r.booking.buyer.first_name === 'Zelda',
      );
      const screens = [
        `/admin/ui/walk-in?service_id=svc_haircut&date=${day(1)}`,
        '/admin/ui/clients?phone=%2B1%20555%20010%207788',
        '/admin/ui/clients',
      ];
      if (phoneOnly) screens.push(`/admin/ui/bookings/${phoneOnly.booking.id}`);
      const findings = [...(await axeFindings(screens, 'phone')), ...(await axeFindings(screens, 'desktop'))];
      expect(findings).toEqual([]);
    }, 120_000);
  },
);
